import { describeSolvable } from './solvable.js';

describeSolvable('tasker', ['order-and-run', 'incremental', 'parallel', 'explain-and-clean', 'variables']);

import { describeSolvable } from './solvable.js';

describeSolvable('evq', ['filter', 'stats', 'query', 'joins', 'expressions']);

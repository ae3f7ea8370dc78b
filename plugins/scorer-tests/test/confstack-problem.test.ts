import { describeSolvable } from './solvable.js';

describeSolvable('confstack', ['ini', 'toml-layers', 'paths-and-overrides', 'schema', 'diff']);

import type { SlopRule } from '../types.js';
import { builtins } from './builtins.js';
import { comparisons } from './comparisons.js';
import { comprehensions } from './comprehensions.js';
import { conditionals } from './conditionals.js';
import { errors } from './errors.js';
import { structure } from './structure.js';

/** The Python rule pack. */
export const pythonRules: readonly SlopRule[] = [
  ...conditionals,
  ...comparisons,
  ...errors,
  ...comprehensions,
  ...builtins,
  ...structure,
];

import type { SlopRule } from '../types.js';
import { conditionals } from './conditionals.js';

/** The Python rule pack. */
export const pythonRules: readonly SlopRule[] = [...conditionals];

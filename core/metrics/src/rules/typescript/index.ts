import type { SlopRule } from '../types.js';
import { control } from './control.js';
import { idioms } from './idioms.js';

/** The TypeScript / JavaScript rule pack. */
export const typescriptRules: readonly SlopRule[] = [...control, ...idioms];

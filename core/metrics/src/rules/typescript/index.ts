import type { SlopRule } from '../types.js';

/** The TypeScript / JavaScript rule pack. */
export const typescriptRules: readonly SlopRule[] = [];

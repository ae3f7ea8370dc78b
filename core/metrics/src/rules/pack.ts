import { pythonRules } from './python/index.js';
import type { SlopRule } from './types.js';
import { typescriptRules } from './typescript/index.js';

/** Every built-in slop rule. */
export const rulePack: readonly SlopRule[] = [...pythonRules, ...typescriptRules];

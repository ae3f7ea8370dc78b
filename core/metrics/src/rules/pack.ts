import type { RuleFamily } from '../languages/types.js';
import { pythonGuards } from './python/guards.js';
import { pythonRules } from './python/index.js';
import type { KindGuard, SlopRule } from './types.js';
import { typescriptRules } from './typescript/index.js';

/** Every built-in slop rule. */
export const rulePack: readonly SlopRule[] = [...pythonRules, ...typescriptRules];

/** Per family, the guards of node kinds (see `pythonGuards`). */
export const ruleGuards: Readonly<Record<RuleFamily, Readonly<Record<string, KindGuard>>>> = {
  python: pythonGuards,
  typescript: {},
  go: {},
};

import type { LanguageId, Rule, RuleFamily } from '../languages/types.js';

export const ruleCategories = [
  'verbose-construct',
  'defensive-check',
  'conditional-ladder',
  'single-use-variable',
  'trivial-wrapper',
  'identity-comprehension',
  'manual-builtin',
  'redundant-control-flow',
  'swallowed-error',
  'boolean-logic',
  'type-escape',
  'dict-pattern',
  'loop-pattern',
] as const;
export type RuleCategory = (typeof ruleCategories)[number];

/** One slop rule: an ast-grep rule whose matches are wasteful or defensive code. */
export interface SlopRule {
  id: string;
  family: RuleFamily;
  category: RuleCategory;
  message: string;
  /** 1 (minor) to 3 (major); a finding costs `weight × 5` minutes of technical debt. */
  weight: number;
  /** Restrict to these grammars of the family (e.g. TypeScript-only syntax). */
  languages?: readonly LanguageId[];
  /** The ast-grep rule; its top level names the node `kind`, so matching can be indexed by kind. */
  rule: Rule & { kind: string };
  /** A snippet the rule must flag, and one it must not. */
  flag: string;
  pass: string;
}

export const debtMinutesPerWeight = 5;

/**
 * Rules of one node kind tested only where `when` holds, a condition each of them implies: a node
 * that fails it is spared every rule of the group. Groups nest.
 */
export interface RuleGroup {
  when: Rule;
  /** Rule ids of the kind, and groups inside this one. */
  rules: readonly (string | RuleGroup)[];
}

/** How the matcher tests the rules of one node kind (see `buildMatcher`). */
export interface KindGuard {
  /** A cheap condition every rule of the kind implies, tested before any of them. */
  when?: Rule;
  groups?: readonly RuleGroup[];
}

import type { RuleFamily } from '../languages/types.js';
import type { SlopRule } from './types.js';

/** A helper that fills in the family, so rule files list only what differs between rules. */
export function define(family: RuleFamily) {
  return (rule: Omit<SlopRule, 'family'>): SlopRule => ({ family, ...rule });
}

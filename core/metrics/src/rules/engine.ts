import type { LanguageSpec } from '../languages/types.js';
import type { SlopRule } from './types.js';

/** The rules that apply to a language: its family's, minus those restricted to other grammars. */
export function rulesFor(
  spec: LanguageSpec,
  pack: readonly SlopRule[],
  disabled: readonly string[] = [],
  only?: readonly string[],
) {
  const off = new Set(disabled);
  const on = only ? new Set(only) : undefined;
  return pack.filter(
    (rule) =>
      rule.family === spec.family &&
      !off.has(rule.id) &&
      (!on || on.has(rule.id)) &&
      (!rule.languages || rule.languages.includes(spec.id)),
  );
}

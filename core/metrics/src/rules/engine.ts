import type { NapiConfig, SgNode } from '@ast-grep/napi';
import type { LanguageSpec } from '../languages/types.js';
import type { SlopRule } from './types.js';

export interface RuleMatch {
  rule: SlopRule;
  /** Zero-based lines of the match. */
  startLine: number;
  endLine: number;
}

/**
 * The rules of one language, matched in a single pass: one `any` rule finds every node some rule
 * may flag, then only the rules indexed under that node's kind are tried on it.
 */
export class CompiledRules {
  private readonly combined: NapiConfig | undefined;
  private readonly byKind = new Map<string, { rule: SlopRule; config: NapiConfig }[]>();

  constructor(
    readonly spec: LanguageSpec,
    readonly rules: readonly SlopRule[],
  ) {
    for (const rule of rules) {
      const list = this.byKind.get(rule.rule.kind) ?? [];
      list.push({ rule, config: { rule: rule.rule } });
      this.byKind.set(rule.rule.kind, list);
    }
    this.combined = rules.length ? { rule: { any: rules.map((rule) => rule.rule) } } : undefined;
  }

  match(root: SgNode): RuleMatch[] {
    if (!this.combined) return [];
    const matches: RuleMatch[] = [];
    for (const node of root.findAll(this.combined)) {
      const candidates = this.byKind.get(node.kind() as string) ?? [];
      let range: ReturnType<SgNode['range']> | undefined;
      for (const { rule, config } of candidates) {
        if (candidates.length > 1 && !node.matches(config)) continue;
        range ??= node.range();
        matches.push({ rule, startLine: range.start.line, endLine: range.end.line });
      }
    }
    return matches;
  }
}

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

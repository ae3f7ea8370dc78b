import type { SgNode } from '@ast-grep/napi';
import type { NapiLang } from '@ast-grep/napi/types/lang.js';
import type { Rule } from '@ast-grep/napi/types/rule.js';

export type LanguageId = 'python' | 'typescript' | 'tsx' | 'javascript' | 'go';

/** Languages sharing a rule pack (TypeScript, TSX and JavaScript share one). */
export type RuleFamily = 'python' | 'typescript' | 'go';

export type { Rule };

/**
 * How a node takes part in cognitive complexity (SonarSource specification):
 * - `structural`: +1 plus the nesting level, and what is inside it is one level deeper; `withElse`
 *   adds the +1 of its `else` branch (hybrid), where the grammar has no node to report for it alone;
 * - `hybrid`: +1 without a nesting increment (else, elif, else if);
 * - `nesting`: no increment, but what is inside it is one level deeper (lambdas, closures);
 * - `logical`: +1 unless it continues a sequence of like boolean operators (`continues`, which the
 *   analysis reads from the operator around it: see `sequenceTag`);
 * - `jump`: +1 (goto, break or continue to a label).
 */
export type CognitiveRole =
  | { kind: 'structural'; withElse?: boolean }
  | { kind: 'hybrid' }
  | { kind: 'nesting' }
  | { kind: 'logical'; continues: boolean }
  | { kind: 'jump' };

export interface LanguageSpec {
  id: LanguageId;
  family: RuleFamily;
  /** The name ast-grep knows the grammar by. */
  lang: NapiLang;
  extensions: readonly string[];
  /** Kind of the root node of a file. */
  rootKind: string;
  /** Standalone plain string statements (docstrings), excluded from SLOC and clone hashes. */
  docstringRule?: Rule;
  /** Node kinds that may be callables; `callableName` decides (undefined: not a callable). */
  callableKinds: readonly string[];
  callableName(
    node: SgNode,
    text: string,
    start: number,
    tagged: (tag: string) => boolean,
  ): string | undefined;
  /** Named scopes that are not callables (classes), for qualified names. */
  scopeKinds: readonly string[];
  /** A scope's name; without it, the node's `name` field (one more node object from ast-grep). */
  scopeName?(node: SgNode, text: string, start: number): string | undefined;
  /** Decision points of cyclomatic complexity, one per matched node. */
  decisionRule: Rule;
  /** Extra decision points of radon's documented table (`ccVariant: radon`). */
  radonRule?: Rule;
  /** Blocks that are clone candidates. */
  cloneKinds: readonly string[];
  /** A candidate that must not be a clone candidate (e.g. `if TYPE_CHECKING:`). */
  cloneExcluded?(text: string, start: number): boolean;
  /**
   * Tags the matcher sets on nodes of a kind (kind → tag → rule), read by `cognitiveRole` through
   * `tagged`, so that roles need no extra calls into the tree.
   */
  roleTags?: Readonly<Record<string, Readonly<Record<string, Rule>>>>;
  /** Nodes with a cognitive-complexity role (see `cognitiveRole`). */
  cognitiveRule: Rule;
  cognitiveRole(kind: string, tagged: (tag: string) => boolean): CognitiveRole | undefined;
  /** Words that are keywords: kept as they are in clone hashes (other names become $VARn). */
  keywords: ReadonlySet<string>;
  /** Words that are literals: `$BOOL` or `$NONE`. */
  literalWords: Readonly<Record<string, string>>;
}

export function anyKind(kinds: readonly string[]): Rule {
  return { any: kinds.map((kind) => ({ kind })) };
}

interface Fields {
  field(name: string): SgNode | null;
}

/** A named child (tree-sitter field) of a node, untyped. */
export function fieldOf(node: SgNode, name: string): SgNode | null {
  return (node as unknown as Fields).field(name);
}

export function fieldText(node: SgNode, name: string): string | undefined {
  return fieldOf(node, name)?.text();
}

/**
 * The tag `$SEQ` on a boolean operator whose left or right operand (or the expression in its one
 * pair of parentheses) is the same operator: that operand continues the sequence, and is bound to
 * `$SEQL` or `$SEQR` (see `sequenceStarts`). The test reads the operator's own children: a test
 * on each operand for its parent would descend from the root of the tree each time, which on a
 * chain of thousands of operators costs time quadratic in its length.
 */
export function sequenceTag(kind: string, operators: readonly string[]): Rule {
  const always: Rule = { not: { kind: 'ERROR' } };
  return {
    any: operators.map((operator): Rule => {
      const operation: Rule = { has: { field: 'operator', regex: `^${operator}$` } };
      const operand = (field: string, tag: string): Rule => {
        const same: Rule = { all: [{ kind, ...operation }, { pattern: tag }] };
        return { has: { field, any: [same, { kind: 'parenthesized_expression', has: same }] } };
      };
      const left = operand('left', '$SEQL');
      const right = operand('right', '$SEQR');
      return { all: [operation, { any: [{ all: [left, { any: [right, always] }] }, right] }] };
    }),
  } as Rule;
}

/** Where the operands that continue the sequence of a `$SEQ` operator start (-1: neither side). */
export function sequenceStarts(node: SgNode): { left: number; right: number } {
  const startOf = (tag: string) => node.getMatch(tag)?.replace('').startPos ?? -1;
  return { left: startOf('SEQL'), right: startOf('SEQR') };
}

/** A boolean operator; the walk sets `continues` from the operator around it (`sequenceTag`). */
export const logicalRole: CognitiveRole = { kind: 'logical', continues: false };
export const continuedLogicalRole: CognitiveRole = { kind: 'logical', continues: true };

/** A function-like node that is not a callable: no increment, but its body nests one level deeper. */
export const nestingRole: CognitiveRole = { kind: 'nesting' };
export const structuralRole: CognitiveRole = { kind: 'structural' };
export const hybridRole: CognitiveRole = { kind: 'hybrid' };

import { parse, type SgNode } from '@ast-grep/napi';
import { registerGrammars } from '../languages/registry.js';
import type { Rule, RuleFamily } from '../languages/types.js';
import type { SlopRule } from './types.js';

const grammarOf: Record<RuleFamily, string> = { python: 'python', typescript: 'TypeScript', go: 'go' };
const expando: Record<RuleFamily, string> = { python: 'µ', typescript: '$', go: 'µ' };

/** The node kind a pattern matches: the deepest node that spans the whole pattern. */
export function patternKind(family: RuleFamily, pattern: string): string {
  registerGrammars();
  const text = pattern.replaceAll('$', expando[family]);
  let node: SgNode = parse(grammarOf[family], text).root();
  for (;;) {
    const named = node.children().filter((child) => child.isNamed());
    const only = named.length === 1 ? named[0]! : undefined;
    if (!only || only.text().trim().length < node.text().trim().length) break;
    node = only;
  }
  if (node.kind() === 'module' || node.kind() === 'program')
    throw new Error(`pattern has no single root: ${pattern}`);
  return node.kind() as string;
}

type RuleInput = Omit<SlopRule, 'family' | 'rule'> & { rule: Rule };

/** Keys of a rule that ast-grep tests after its `all` (relational ones, and `not`). */
const beforeAll = ['not', 'inside', 'has', 'precedes', 'follows'] as const;

/**
 * The rule with its relational keys and `not` tested before its `all`, in the order written.
 * ast-grep tests a rule's `all`, `any` and `not` before its `has`, `inside`, `precedes` and
 * `follows`; a rule of the pack keeps its dearest tests in `all` (a statement's siblings, a block
 * of one statement) and its cheap ones at the top (`callTo`'s callee, an `__init__`'s name), so
 * that the dear ones run only on the nodes the cheap ones admit.
 */
function dearestLast(rule: Rule): Rule {
  if (!rule.all) return rule;
  const front: Rule[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rule)) {
    if ((beforeAll as readonly string[]).includes(key)) front.push({ [key]: value } as Rule);
    else if (key !== 'all') rest[key] = value;
  }
  return front.length ? ({ ...rest, all: [...front, ...rule.all] } as Rule) : rule;
}

/**
 * Fills in the family, and the top-level `kind` of a rule that is a pattern, so rule files list
 * only what differs between rules; orders its tests (see `dearestLast`).
 */
export function define(family: RuleFamily) {
  return (input: RuleInput): SlopRule => {
    const rule = input.rule as Rule & { kind?: string };
    const kind =
      rule.kind ?? (typeof rule.pattern === 'string' ? patternKind(family, rule.pattern) : undefined);
    if (!kind) throw new Error(`rule ${input.id}: give a kind or a pattern`);
    return { family, ...input, rule: { ...dearestLast(rule), kind } };
  };
}

/**
 * Matches any statement-like sibling (for "is there a sibling before / after" tests); a closing
 * brace token does not count.
 */
export const anyNode: Rule = { regex: '^[^}]' };

/** A block whose only statement matches `rule`. */
export function only(rule: Rule): Rule {
  return { has: { ...rule, nthChild: 1, not: { precedes: anyNode } } as Rule };
}

/** A statement after the first of a block (comments aside: `nthChild` counts named nodes only). */
const second: Rule = { nthChild: { position: 2, ofRule: { not: { kind: 'comment' } } } };

/**
 * The block at `field` holds one statement (comments aside), which matches `statement` when given.
 * A pattern's block matches every block that begins with the pattern's statements (ast-grep
 * matches a node's children up to the pattern's last one), so a rule about a block of one
 * statement says so. (The `ast` and `relaxed` strictness would match whole blocks, but they skip
 * unnamed nodes, operators among them: `$T += $E` would match `t -= x`.) Unlike `only`, a comment
 * or a `;` after the statement does not count as a second one. The test is dear (it finds each
 * statement's parent from the root of the tree), so a rule tests it in its `all`, which runs
 * after its pattern and its relational tests (see `dearestLast`).
 */
export function sole(field: string, statement?: Rule): Rule {
  return { has: { field, not: { has: second }, ...(statement ? { has: statement } : {}) } as Rule };
}

/** An if statement whose branch and `else` branch each hold one statement. */
export const soleBranches: Rule = {
  all: [sole('consequence'), { has: { kind: 'else_clause', ...sole('body') } as Rule }],
};

/** An if statement whose branch ends with one of `exits` and that also has `alternative`. */
export function elseAfter(exits: string[], alternative: Rule): Rule & { kind: string } {
  return {
    kind: 'if_statement',
    has: {
      field: 'consequence',
      has: { any: exits.map((kind) => ({ kind })), not: { precedes: anyNode } } as Rule,
    },
    all: [alternative],
  };
}

/** A call (node `kind`) whose callee text matches `callee`, and whose arguments match `args`. */
export function callTo(kind: string, callee: string, args?: Rule): Rule & { kind: string } {
  return {
    kind,
    has: { field: 'function', regex: callee },
    ...(args ? { all: [{ has: { field: 'arguments', ...args } as Rule }] } : {}),
  };
}

/**
 * A binary expression whose own operator matches `operator` and whose text matches `text`. The
 * operator is read first: an `&&` or `||` around the comparison ends with the same text, and its
 * text is the whole rest of a chain.
 */
export function comparison(operator: string, text: string): Rule & { kind: string } {
  return {
    kind: 'binary_expression',
    all: [{ has: { field: 'operator', regex: operator } }, { regex: text }],
  };
}

/** Openings of comments that narrate the next line instead of explaining it. */
export const narration =
  '(Initiali[sz]e (the |a |an )?\\w+|Loop (through|over)|Iterate (through|over)|Return the|Check if|Create (a|an|the) |Define (a|an|the) |Call the|Increment the|Set the|Get the|Import (the )?(necessary|required))';

import type { SgNode } from '@ast-grep/napi';
import {
  anyKind,
  type CognitiveRole,
  fieldText,
  type LanguageSpec,
  logicalRole,
  nestingRole,
  type Rule,
  sequenceTag,
  structuralRole,
} from './types.js';

const decisionKinds = [
  'if_statement',
  'elif_clause',
  'for_statement',
  'while_statement',
  'except_clause',
  'assert_statement',
  'list_comprehension',
  'set_comprehension',
  'dictionary_comprehension',
  'generator_expression',
  'boolean_operator',
  'conditional_expression',
  'if_clause',
];

const keywords = new Set(
  'and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case print exec'.split(
    ' ',
  ),
);

/** `if TYPE_CHECKING:`, read where the node starts (sticky: no copy of the text). */
const typeChecking = /if\s+(?:typing\.)?TYPE_CHECKING\s*:/y;

/** An identifier as Python (PEP 3131) and tree-sitter-python read one: `café` and `数据` too. */
const identifier = '[\\p{XID_Start}_][\\p{XID_Continue}]*';

/** A function's or a class's name, read where the node starts (sticky: no copy of the text). */
const definition = new RegExp(`(?:async\\s+)?def\\s+(${identifier})`, 'uy');
const classDefinition = new RegExp(`class\\s+(${identifier})`, 'uy');

/**
 * The name after the keyword at `start`, else the node's `name` field (a name the pattern does not
 * find, as after a line continuation, is still the tree's).
 */
function nameAt(pattern: RegExp, node: SgNode, text: string, start: number): string | undefined {
  pattern.lastIndex = start;
  return pattern.exec(text)?.[1] ?? fieldText(node, 'name');
}

// The branches of an if statement are its `alternative` field, elifs first. ast-grep's `has` with a
// field tests only the field's first node, and costs about a fifth of a `has` without one, which
// visits every child of the if: these tests use the field wherever its first node decides.

/**
 * A name, an attribute or an item: what can stand both where a value is read and where one is
 * bound by `=` or `for … in`. A tuple or a list of names is another kind in each place.
 */
export const nameOrItem: Rule = {
  any: [{ kind: 'identifier' }, { kind: 'attribute' }, { kind: 'subscript' }],
};

/** The if has an `elif`. */
export const elifBranch: Rule = { has: { field: 'alternative', kind: 'elif_clause' } };
/** The if has an `else` and no `elif`. */
export const plainElse: Rule = { has: { field: 'alternative', kind: 'else_clause' } };
/** The if has an `elif` or an `else`. */
export const anyBranch: Rule = {
  has: { field: 'alternative', any: [{ kind: 'elif_clause' }, { kind: 'else_clause' }] },
};
/** The if has an `else`, after elifs or not. */
export const elseBranch: Rule = { any: [plainElse, { all: [elifBranch, { has: { kind: 'else_clause' } }] }] };

const structuralWithElse: CognitiveRole = { kind: 'structural', withElse: true };

function cognitiveRole(kind: string, tagged: (tag: string) => boolean): CognitiveRole | undefined {
  switch (kind) {
    case 'if_statement':
      return tagged('ELSE') ? structuralWithElse : structuralRole;
    case 'for_statement':
    case 'while_statement':
      return structuralRole;
    case 'except_clause':
    case 'match_statement':
      return structuralRole;
    case 'conditional_expression':
      return structuralRole;
    case 'elif_clause':
      return { kind: 'hybrid' };
    case 'lambda':
      return nestingRole;
    case 'boolean_operator':
      return logicalRole;
    default:
      return undefined;
  }
}

export const python: LanguageSpec = {
  id: 'python',
  family: 'python',
  lang: 'python',
  rootKind: 'module',
  extensions: ['.py', '.pyw'],
  // A statement that is one plain (not f-, not b-) string literal. In `all`, the regex (which reads
  // the statement's text, copied out of the tree) runs only on statements that hold a string:
  // as a key beside `kind` it would run first, on every expression statement.
  docstringRule: {
    kind: 'expression_statement',
    all: [{ has: { kind: 'string' } }, { regex: '^[rRuU]?("|\')[\\s\\S]*("|\')$' }],
  },
  callableKinds: ['function_definition'],
  callableName: (node, text, start) => nameAt(definition, node, text, start),
  scopeKinds: ['class_definition'],
  scopeName: (node, text, start) => nameAt(classDefinition, node, text, start),
  decisionRule: anyKind(decisionKinds),
  radonRule: anyKind(['with_statement', 'lambda']),
  cloneKinds: [
    'function_definition',
    'if_statement',
    'for_statement',
    'while_statement',
    'with_statement',
    'try_statement',
    'match_statement',
  ],
  cloneExcluded: (text, start) => {
    typeChecking.lastIndex = start;
    return typeChecking.test(text);
  },
  cognitiveRule: anyKind([
    'if_statement',
    'elif_clause',
    'for_statement',
    'while_statement',
    'except_clause',
    'match_statement',
    'conditional_expression',
    'lambda',
    'boolean_operator',
  ]),
  roleTags: {
    boolean_operator: { SEQ: sequenceTag('boolean_operator', ['and', 'or']) },
    // The `else` of an if (not of a loop or a try) as a tag on the if: the if is reported anyway,
    // where each else clause would be one more node to report and to test for its parent.
    if_statement: { ELSE: elseBranch },
  },
  cognitiveRole,
  keywords,
  literalWords: { True: '$BOOL', False: '$BOOL', None: '$NONE' },
};

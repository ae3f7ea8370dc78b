import type { SgNode } from '@ast-grep/napi';
import {
  anyKind,
  type CognitiveRole,
  escapeRegExp,
  fieldText,
  type LanguageSpec,
  logicalRole,
  nestingRole,
  regionOf,
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

function cognitiveRole(node: SgNode, kind: string): CognitiveRole | undefined {
  switch (kind) {
    case 'if_statement':
      return { kind: 'structural', region: regionOf(node, 'consequence') };
    case 'for_statement':
    case 'while_statement':
      return { kind: 'structural', region: regionOf(node, 'body') };
    case 'except_clause':
    case 'match_statement':
      return { kind: 'structural', region: node.range().start.index + 1 };
    case 'conditional_expression':
      return { kind: 'structural', region: node.range().start.index + 1 };
    case 'elif_clause':
      return { kind: 'hybrid' };
    case 'else_clause':
      return node.parent()?.kind() === 'if_statement' ? { kind: 'hybrid' } : undefined;
    case 'lambda':
      return nestingRole(node);
    case 'boolean_operator':
      return logicalRole(node);
    default:
      return undefined;
  }
}

export const python: LanguageSpec = {
  id: 'python',
  family: 'python',
  lang: 'python',
  extensions: ['.py', '.pyw'],
  // A statement that is one plain (not f-, not b-) string literal.
  docstringRule: {
    kind: 'expression_statement',
    has: { kind: 'string' },
    regex: '^[rRuU]?("|\')[\\s\\S]*("|\')$',
  },
  callableKinds: ['function_definition'],
  callableName: (node) => fieldText(node, 'name'),
  scopeKinds: ['class_definition'],
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
  cloneExcluded: (node) =>
    node.kind() === 'if_statement' && /^(typing\.)?TYPE_CHECKING$/.test(fieldText(node, 'condition') ?? ''),
  cognitiveRule: anyKind([
    'if_statement',
    'elif_clause',
    'else_clause',
    'for_statement',
    'while_statement',
    'except_clause',
    'match_statement',
    'conditional_expression',
    'lambda',
    'boolean_operator',
  ]),
  cognitiveRole,
  recursionPattern: (name) =>
    new RegExp(String.raw`(?<![\w.])(?<!def\s+)(?:(?:self|cls)\.)?${escapeRegExp(name)}\s*\(`, 'g'),
  keywords,
  literalWords: { True: '$BOOL', False: '$BOOL', None: '$NONE' },
};

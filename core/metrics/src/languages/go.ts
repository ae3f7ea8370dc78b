import type { SgNode } from '@ast-grep/napi';
import {
  anyKind,
  type CognitiveRole,
  fieldText,
  type LanguageSpec,
  logicalRole,
  nestingRole,
  sequenceTag,
  structuralRole,
} from './types.js';

const logicalOperator = '^(&&|\\|\\|)$';

const keywords = new Set(
  'break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var'.split(
    ' ',
  ),
);

/** Declared functions and methods, and function literals bound to a name. */
function callableName(node: SgNode): string | undefined {
  if (node.kind() !== 'func_literal') return fieldText(node, 'name');
  const list = node.parent();
  const binding = list?.kind() === 'expression_list' ? list.parent() : undefined;
  switch (binding?.kind()) {
    case 'short_var_declaration':
    case 'assignment_statement':
      return fieldText(binding, 'left');
    case 'var_spec':
      return fieldText(binding, 'name');
    default:
      return undefined;
  }
}

function cognitiveRole(kind: string, tagged: (tag: string) => boolean): CognitiveRole | undefined {
  switch (kind) {
    case 'if_statement': {
      if (tagged('ELIF')) return { kind: 'hybrid' };
      return structuralRole;
    }
    case 'block':
      // An `else { … }` block: the alternative of an if statement.
      return { kind: 'hybrid' };
    case 'for_statement':
      return structuralRole;
    case 'expression_switch_statement':
    case 'type_switch_statement':
    case 'select_statement':
      return structuralRole;
    case 'func_literal':
      return nestingRole;
    case 'break_statement':
    case 'continue_statement':
    case 'goto_statement':
      return { kind: 'jump' };
    case 'binary_expression':
      return logicalRole;
    default:
      return undefined;
  }
}

export const go: LanguageSpec = {
  id: 'go',
  family: 'go',
  lang: 'go',
  rootKind: 'source_file',
  extensions: ['.go'],
  callableKinds: ['function_declaration', 'method_declaration', 'func_literal'],
  callableName,
  scopeKinds: [],
  decisionRule: {
    any: [
      ...anyKind(['if_statement', 'for_statement', 'expression_case', 'type_case', 'communication_case'])
        .any!,
      { kind: 'binary_expression', has: { field: 'operator', regex: logicalOperator } },
    ],
  },
  cloneKinds: [
    'function_declaration',
    'method_declaration',
    'func_literal',
    'if_statement',
    'for_statement',
    'expression_switch_statement',
    'type_switch_statement',
    'select_statement',
  ],
  cognitiveRule: {
    any: [
      ...anyKind([
        'if_statement',
        'for_statement',
        'expression_switch_statement',
        'type_switch_statement',
        'select_statement',
        'func_literal',
        'goto_statement',
      ]).any!,
      { kind: 'block', inside: { kind: 'if_statement', field: 'alternative' } },
      { kind: 'break_statement', has: { kind: 'label_name' } },
      { kind: 'continue_statement', has: { kind: 'label_name' } },
      { kind: 'binary_expression', has: { field: 'operator', regex: logicalOperator } },
    ],
  },
  roleTags: {
    binary_expression: { SEQ: sequenceTag('binary_expression', ['&&', '\\|\\|']) },
    if_statement: { ELIF: { inside: { kind: 'if_statement' } } },
  },
  cognitiveRole,
  keywords,
  literalWords: { true: '$BOOL', false: '$BOOL', nil: '$NONE', iota: '$INT' },
};

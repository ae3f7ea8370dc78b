import { Lang, type SgNode } from '@ast-grep/napi';
import {
  anyKind,
  type CognitiveRole,
  fieldText,
  type LanguageId,
  type LanguageSpec,
  logicalRole,
  nestingRole,
  sequenceTag,
  structuralRole,
} from './types.js';

const logicalOperator = '^(&&|\\|\\||\\?\\?)$';
const logicalAssignment = '^(&&=|\\|\\|=|\\?\\?=)$';

const keywords = new Set(
  'abstract any as async await boolean break case catch class const constructor continue debugger declare default delete do else enum export extends finally for from function get if implements import in infer instanceof interface is keyof let module namespace never new number object of package private protected public readonly return satisfies set static string super switch symbol this throw try type typeof unique unknown var void while with yield'.split(
    ' ',
  ),
);

const ownName = /^(?:async\s+)?function\s*\*?\s*([A-Za-z_$\u00C0-\uFFFF][\w$\u00C0-\uFFFF]*)/;

/** Where a function-like node gets its name from, when it has one (see README: callables). */
function callableName(
  node: SgNode,
  text: string,
  start: number,
  tagged: (tag: string) => boolean,
): string | undefined {
  const kind = node.kind();
  if (kind === 'arrow_function' || kind === 'function_expression') {
    const own = kind === 'arrow_function' ? undefined : ownName.exec(text.slice(start, start + 200))?.[1];
    // Only a function in a binding position (tagged by the matcher) can take its name from there.
    if (!tagged('BOUND')) return own;
    const parent = node.parent();
    switch (parent?.kind()) {
      case 'variable_declarator':
      case 'public_field_definition':
      case 'field_definition':
        return fieldText(parent, 'name') ?? fieldText(parent, 'property') ?? own;
      case 'pair':
        return fieldText(parent, 'key') ?? own;
      case 'assignment_expression': {
        const left = fieldText(parent, 'left') ?? '';
        return left.slice(left.lastIndexOf('.') + 1) || own;
      }
      default:
        return own;
    }
  }
  return fieldText(node, 'name') ?? (kind === 'method_definition' ? 'anonymous' : undefined);
}

function cognitiveRole(kind: string, tagged: (tag: string) => boolean): CognitiveRole | undefined {
  switch (kind) {
    case 'if_statement':
      return tagged('ELIF') ? { kind: 'hybrid' } : structuralRole;
    case 'else_clause':
      return tagged('ELIF') ? undefined : { kind: 'hybrid' };
    case 'for_statement':
    case 'for_in_statement':
    case 'while_statement':
    case 'do_statement':
      return structuralRole;
    case 'catch_clause':
      return structuralRole;
    case 'switch_statement':
      return structuralRole;
    case 'ternary_expression':
      return structuralRole;
    case 'arrow_function':
    case 'function_expression':
      return nestingRole;
    case 'break_statement':
    case 'continue_statement':
      return { kind: 'jump' };
    case 'binary_expression':
      return logicalRole;
    default:
      return undefined;
  }
}

/** A function in a position that names it (JavaScript's grammar calls class fields differently). */
const bound = (id: LanguageId) => ({
  inside: {
    any: [
      { kind: 'variable_declarator' },
      { kind: id === 'javascript' ? 'field_definition' : 'public_field_definition' },
      { kind: 'pair' },
      { kind: 'assignment_expression' },
    ],
  },
});

/** The functions measured as callables (and clone candidates). */
export const functionKinds = [
  'function_declaration',
  'generator_function_declaration',
  'method_definition',
  'function_expression',
  'arrow_function',
];

function spec(id: LanguageId, lang: Lang, extensions: string[]): LanguageSpec {
  return {
    id,
    family: 'typescript',
    lang,
    extensions,
    rootKind: 'program',
    callableKinds: functionKinds,
    callableName,
    scopeKinds: ['class_declaration', 'class', 'abstract_class_declaration'],
    decisionRule: {
      any: [
        ...anyKind([
          'if_statement',
          'for_statement',
          'for_in_statement',
          'while_statement',
          'do_statement',
          'switch_case',
          'catch_clause',
          'ternary_expression',
        ]).any!,
        { kind: 'binary_expression', has: { field: 'operator', regex: logicalOperator } },
        { kind: 'augmented_assignment_expression', has: { field: 'operator', regex: logicalAssignment } },
      ],
    },
    cloneKinds: [
      ...functionKinds,
      'if_statement',
      'for_statement',
      'for_in_statement',
      'while_statement',
      'do_statement',
      'try_statement',
      'switch_statement',
    ],
    cognitiveRule: {
      any: [
        ...anyKind([
          'if_statement',
          'else_clause',
          'for_statement',
          'for_in_statement',
          'while_statement',
          'do_statement',
          'catch_clause',
          'switch_statement',
          'ternary_expression',
          'arrow_function',
          'function_expression',
        ]).any!,
        { kind: 'break_statement', has: { kind: 'statement_identifier' } },
        { kind: 'continue_statement', has: { kind: 'statement_identifier' } },
        { kind: 'binary_expression', has: { field: 'operator', regex: logicalOperator } },
      ],
    },
    roleTags: {
      arrow_function: { BOUND: bound(id) },
      function_expression: { BOUND: bound(id) },
      binary_expression: { SEQ: sequenceTag('binary_expression', ['&&', '\\|\\|', '\\?\\?']) },
      if_statement: { ELIF: { inside: { kind: 'else_clause' } } },
      else_clause: { ELIF: { has: { kind: 'if_statement' } } },
    },
    cognitiveRole,
    keywords,
    literalWords: { true: '$BOOL', false: '$BOOL', null: '$NONE', undefined: '$NONE' },
  };
}

export const typescript = spec('typescript', Lang.TypeScript, ['.ts', '.mts', '.cts']);
export const tsx = spec('tsx', Lang.Tsx, ['.tsx']);
export const javascript = spec('javascript', Lang.JavaScript, ['.js', '.mjs', '.cjs', '.jsx']);

import { anyBranch, elifBranch, plainElse } from '../../languages/python.js';
import { sole } from '../define.js';
import type { KindGuard, RuleGroup } from '../types.js';

/**
 * A node of these kinds is tested against the rules of its kind only when the kind's `when` holds,
 * and against the rules of a group only when the group's `when` holds: conditions that every rule
 * they cover implies (see `buildMatcher`). Each test is a walk of ast-grep's rule interpreter, and
 * on kinds as common as calls and if statements, most of the matching's cost is rules that do not
 * match. A rule whose guard did not admit what it matches would never fire: its own test (`flag`
 * must be flagged, with the rule alone and its guards) catches that.
 */

/** The if rules that need an `else` branch and no `elif`. */
const elseRules: RuleGroup = {
  when: plainElse,
  rules: [
    {
      // Each rule of the next two groups is a case of the group's pattern: a metavariable there
      // matches whatever the rule's pattern has in its place.
      when: { pattern: 'if $C:\n    return $A\nelse:\n    return $B' },
      rules: ['py-return-bool-ladder', 'py-return-inverted-bool-ladder', 'py-if-else-return-ternary'],
    },
    {
      when: { pattern: 'if $C:\n    $X = $A\nelse:\n    $X = $B' },
      rules: [
        'py-assign-bool-ladder',
        'py-if-else-assign-ternary',
        'py-manual-max',
        'py-manual-min',
        'py-manual-dict-get-if',
      ],
    },
    'py-if-not-else',
    'py-redundant-else-after-return',
    'py-redundant-else-after-raise',
    'py-redundant-else-after-continue',
    'py-manual-counter',
  ],
};

/**
 * The loop rules about a body of one statement. Their patterns match any loop whose body begins
 * with the pattern's statement, so each tests `sole` after its pattern; ten patterns on every loop
 * cost more than one `sole` on it.
 */
const soleBodyLoop: RuleGroup = {
  when: sole('body'),
  rules: [
    'py-manual-sum',
    'py-manual-count',
    'py-manual-any',
    'py-manual-all',
    'py-manual-map-append',
    'py-manual-filter-append',
    'py-manual-dict-build',
    'py-manual-join',
    'py-manual-extend',
    'py-manual-update',
  ],
};

/** The call rules that pass a list comprehension. */
const comprehensionArgument: RuleGroup = {
  when: { has: { field: 'arguments', has: { kind: 'list_comprehension' } } },
  rules: [
    'py-list-of-comprehension',
    'py-list-comp-in-any-all',
    'py-list-comp-in-reducer',
    'py-list-comp-in-join',
    'py-len-of-comprehension',
  ],
};

export const pythonGuards: Readonly<Record<string, KindGuard>> = {
  call: {
    // The callee of every call rule ends with one of these names (`len`, `$D.get`, `os.path.join`…).
    // An ASCII class, not `\W`: it admits a little more (`élen`), which the rules then reject, and
    // compiles in a fifth of the instructions (the matcher is compiled on every `findInFiles`).
    when: {
      has: {
        field: 'function',
        regex:
          '(^|[^A-Za-z0-9_])(list|set|tuple|frozenset|dict|any|all|sum|min|max|sorted|len|int|str|float|bool|range|super|getattr|setattr|isinstance|cast|loads|join|get)$',
      },
    },
    groups: [
      comprehensionArgument,
      {
        when: { has: { field: 'function', kind: 'attribute' } },
        rules: ['py-dict-get-none-default', 'py-json-roundtrip-copy', 'py-path-join-single'],
      },
      {
        when: { has: { field: 'function', kind: 'identifier' } },
        rules: [
          {
            // The rules about a conversion or a container (`str(…)`, `list(…)`…). The guard also
            // admits `len`, `isinstance` and the other callees: one regex keeps eight rules off them.
            when: {
              has: { field: 'function', regex: '^(?:int|str|float|bool|list|tuple|set|dict|sorted)$' },
            },
            rules: [
              'py-set-of-list-literal',
              'py-empty-list-call',
              'py-redundant-conversion',
              'py-sorted-of-list',
              'py-list-of-sorted',
              'py-list-of-keys',
              'py-str-of-string-literal',
              'py-bool-of-comparison',
            ],
          },
          'py-range-zero-start',
          'py-getattr-literal',
          'py-setattr-literal',
          'py-isinstance-single-tuple',
          'py-super-with-arguments',
        ],
      },
    ],
  },
  // Every function rule is about a body of one statement: trivial wrappers, getters and setters,
  // a lone `super().__init__(…)` or `return None`. That statement begins the body's text, which is
  // read first: `sole` is dear (it finds statements' parent from the root of the tree), but less so
  // than the rules' four patterns on every function.
  function_definition: {
    when: {
      all: [
        { has: { field: 'body', regex: '^(?:(?:return|self)\\b|super\\(\\)\\.__init__\\()' } },
        sole('body'),
      ],
    },
  },
  for_statement: { groups: [soleBodyLoop] },
  if_statement: {
    // An `else` or `elif`; or a condition that is parenthesized, `len(…)`, `bool(…)` or tests `not
    // in`; or a branch that begins with `if`, `for`, `return` or `continue` (this alternative
    // admits any block inside the statement that begins so: the guard only has to admit every
    // match, not to reject every miss).
    when: {
      any: [
        anyBranch,
        {
          regex:
            '^if\\s*\\(|^if\\s+(?:len|bool)\\s*\\(|\\bnot\\s+in\\b|:\\s*(?:#[^\\n]*\\s*)*(?:if|for|return|continue)\\b',
        },
      ],
    },
    groups: [
      elseRules,
      {
        when: elifBranch,
        rules: ['py-long-elif-ladder', 'py-isinstance-ladder', 'py-redundant-elif-after-return'],
      },
      {
        when: { pattern: 'if $C:\n    return $VALUE' },
        rules: ['py-return-bool-fallthrough', 'py-none-guard-return-none', 'py-empty-guard-return-empty'],
      },
      // A kind read before the patterns: the condition `len(…)` or `bool(…)` is a call, and the
      // guarded loop a statement of the branch.
      {
        when: { has: { field: 'condition', kind: 'call' } },
        rules: ['py-len-truthiness', 'py-bool-in-condition'],
      },
      {
        when: { has: { field: 'consequence', has: { kind: 'for_statement' } } },
        rules: ['py-len-guard-before-loop'],
      },
    ],
  },
  except_clause: {
    groups: [
      {
        // Each of these handlers holds one statement (`only`), which begins the block's text.
        when: { has: { kind: 'block', regex: '^(?:(?:pass|continue|return|raise)\\b|print\\()' } },
        rules: [
          'py-except-pass',
          'py-except-continue',
          'py-except-return-none',
          'py-except-print-only',
          'py-except-reraise-only',
        ],
      },
    ],
  },
  // The comparison rules: a literal or `.keys()` on the right, `type(…)` on the left, or `len`.
  comparison_operator: {
    when: {
      regex:
        '(==|!=)\\s*(True|False|None|""|\'\'|\\[\\]|\\{\\})$|is\\s+(not\\s+)?(True|False)$|in\\s+[\\w.]+\\.keys\\(\\)$|^type\\(|len',
    },
  },
};

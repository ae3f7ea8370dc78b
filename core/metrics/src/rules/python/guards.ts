import type { Rule } from '../../languages/types.js';

/**
 * A cheap condition per node kind that every Python rule of that kind implies: the matcher tests a
 * node against the rules of its kind only when the guard holds (see `buildMatcher`). Most calls
 * and comparisons are none of the constructs the rules look for, and one regex on the callee or the
 * comparison rejects them instead of each rule in turn. A rule of a guarded kind that the guard does
 * not admit would never fire: its own test (`flag` must be flagged) catches that.
 */
export const pythonGuards: Readonly<Record<string, Rule>> = {
  // The callee of every call rule ends with one of these names (`len`, `$D.get`, `os.path.join`…).
  call: {
    has: {
      field: 'function',
      regex:
        '(^|\\W)(list|set|tuple|frozenset|dict|any|all|sum|min|max|sorted|len|int|str|float|bool|range|super|getattr|setattr|isinstance|cast|loads|join|get)$',
    },
  },
  // The if rules: an `else` or `elif`; or a condition that is parenthesized, `len(…)`, `bool(…)` or
  // tests `not in`; or a branch that begins with `if`, `for`, `return` or `continue` (this
  // alternative admits any block inside the statement that begins so: the guard only has to
  // admit every match, not to reject every miss).
  if_statement: {
    any: [
      { has: { kind: 'else_clause' } },
      { has: { kind: 'elif_clause' } },
      {
        regex:
          '^if\\s*\\(|^if\\s+(?:len|bool)\\s*\\(|\\bnot\\s+in\\b|:\\s*(?:#[^\\n]*\\s*)*(?:if|for|return|continue)\\b',
      },
    ],
  },
  // The comparison rules: a literal or `.keys()` on the right, `type(…)` on the left, or `len`.
  comparison_operator: {
    regex:
      '(==|!=)\\s*(True|False|None|""|\'\'|\\[\\]|\\{\\})$|is\\s+(not\\s+)?(True|False)$|in\\s+[\\w.]+\\.keys\\(\\)$|^type\\(|len',
  },
};

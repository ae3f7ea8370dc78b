import { nameOrItem } from '../../languages/python.js';
import { callTo, define, narration, only, sole } from '../define.js';

const python = define('python');

const statement = (pattern: string) => ({ kind: 'expression_statement', has: { pattern } });

/**
 * A statement that returns or raises what `$X = $E` assigned names it as `=` did: tested before the
 * look at the statement before, which finds the parent from the root of the tree.
 */
const assignable = { has: nameOrItem };

/** Single-use variables, trivial wrappers, type escapes and narration. */
export const structure = [
  python({
    id: 'py-assign-then-return',
    category: 'single-use-variable',
    message: 'variable assigned and returned on the next line: return the expression',
    weight: 1,
    rule: { pattern: 'return $X', ...assignable, follows: statement('$X = $E') },
    flag: 'def f(xs):\n    result = [x * 2 for x in xs]\n    return result\n',
    pass: 'def f(xs):\n    return [x * 2 for x in xs]\n',
  }),
  python({
    id: 'py-assign-then-yield',
    category: 'single-use-variable',
    message: 'variable assigned and yielded on the next line: yield the expression',
    weight: 1,
    rule: { kind: 'expression_statement', has: { pattern: 'yield $X' }, follows: statement('$X = $E') },
    flag: 'def f(xs):\n    for x in xs:\n        item = x * 2\n        yield item\n',
    pass: 'def f(xs):\n    for x in xs:\n        yield x * 2\n',
  }),
  python({
    id: 'py-assign-then-raise',
    category: 'single-use-variable',
    message: 'exception assigned to a name only to raise it on the next line',
    weight: 1,
    rule: { pattern: 'raise $X', ...assignable, follows: statement('$X = $E') },
    flag: 'def f():\n    error = ValueError("bad")\n    raise error\n',
    pass: 'def f():\n    raise ValueError("bad")\n',
  }),
  python({
    id: 'py-temp-swap',
    category: 'single-use-variable',
    message: 'swap through a temporary: write `a, b = b, a`',
    weight: 1,
    rule: {
      kind: 'expression_statement',
      // The temporary is a name and what it saves can be assigned to. `all` tests in order: most
      // assignments fail on their own children, before any pattern or the costly look at the next
      // statements.
      all: [
        {
          has: {
            kind: 'assignment',
            all: [
              { has: { field: 'left', kind: 'identifier' } },
              {
                has: {
                  field: 'right',
                  any: [{ kind: 'identifier' }, { kind: 'attribute' }, { kind: 'subscript' }],
                },
              },
              { pattern: '$T = $A' },
            ],
          },
        },
        {
          precedes: {
            kind: 'expression_statement',
            has: { pattern: '$A = $B' },
            precedes: statement('$B = $T'),
          },
        },
      ],
    },
    flag: 'tmp = a\na = b\nb = tmp\n',
    pass: 'a, b = b, a\n',
  }),
  python({
    id: 'py-trivial-wrapper',
    category: 'trivial-wrapper',
    message: 'function whose whole body returns another call with the same arguments: call it directly',
    weight: 2,
    rule: {
      kind: 'function_definition',
      all: [
        {
          any: [
            { pattern: 'def $F($$$A):\n    return $G($$$A)' },
            { pattern: 'def $F(self, $$$A):\n    return $G($$$A)' },
          ],
        },
        sole('body'),
      ],
    },
    flag: 'def load(path):\n    return read_file(path)\n',
    pass: 'def load(path):\n    return read_file(path, encoding="utf-8")\n',
  }),
  python({
    id: 'py-lambda-wrapper',
    category: 'trivial-wrapper',
    message: '`lambda x: f(x)`: pass f itself',
    weight: 1,
    rule: { pattern: 'lambda $X: $F($X)' },
    flag: 'names = map(lambda x: str(x), items)\n',
    pass: 'names = map(str, items)\n',
  }),
  python({
    id: 'py-passthrough-init',
    category: 'trivial-wrapper',
    message: '`__init__` that only calls the parent’s: leave it out',
    weight: 1,
    rule: {
      kind: 'function_definition',
      has: { field: 'name', regex: '^__init__$' },
      all: [
        {
          has: {
            field: 'body',
            ...only({ kind: 'expression_statement', regex: '^super\\(\\)\\.__init__\\(' }),
          },
        },
      ],
    },
    flag: 'class A(B):\n    def __init__(self, x):\n        super().__init__(x)\n',
    pass: 'class A(B):\n    def __init__(self, x):\n        super().__init__(x)\n        self.y = 1\n',
  }),
  python({
    id: 'py-trivial-getter',
    category: 'trivial-wrapper',
    message: 'method that only returns an attribute: use the attribute or a property',
    weight: 1,
    rule: {
      kind: 'function_definition',
      pattern: 'def $F(self):\n    return self.$A',
      not: { inside: { kind: 'decorated_definition' } },
      all: [sole('body')],
    },
    flag: 'class A:\n    def get_name(self):\n        return self.name\n',
    pass: 'class A:\n    @property\n    def name(self):\n        return self._name\n',
  }),
  python({
    id: 'py-trivial-setter',
    category: 'trivial-wrapper',
    message: 'method that only sets an attribute: assign the attribute',
    weight: 1,
    rule: {
      kind: 'function_definition',
      pattern: 'def $F(self, $V):\n    self.$A = $V',
      not: { inside: { kind: 'decorated_definition' } },
      all: [sole('body')],
    },
    flag: 'class A:\n    def set_name(self, value):\n        self.name = value\n',
    pass: 'class A:\n    def rename(self, value):\n        self.name = value.strip()\n',
  }),
  python({
    id: 'py-explicit-object-base',
    category: 'verbose-construct',
    message: '`class C(object):` is the default in Python 3',
    weight: 1,
    rule: { kind: 'class_definition', has: { field: 'superclasses', regex: '^\\(\\s*object\\s*\\)$' } },
    flag: 'class A(object):\n    pass\n',
    pass: 'class A:\n    pass\n',
  }),
  python({
    id: 'py-super-with-arguments',
    category: 'verbose-construct',
    message: '`super(C, self)`: write `super()`',
    weight: 1,
    rule: { pattern: 'super($C, self)' },
    flag: 'class A(B):\n    def f(self):\n        super(A, self).f()\n',
    pass: 'class A(B):\n    def f(self):\n        super().f()\n',
  }),
  python({
    id: 'py-cast-any',
    category: 'type-escape',
    message: '`cast(Any, x)` switches type checking off for x',
    weight: 2,
    rule: callTo('call', '^(typing\\.)?cast$', { regex: '^\\(\\s*(typing\\.)?Any\\s*,' }),
    flag: 'value = cast(Any, raw)\n',
    pass: 'value = cast(int, raw)\n',
  }),
  python({
    id: 'py-type-ignore',
    category: 'type-escape',
    message: '`# type: ignore` hides a type error instead of fixing it',
    weight: 1,
    rule: { kind: 'comment', regex: '^#\\s*type:\\s*ignore' },
    flag: 'x = f()  # type: ignore\n',
    pass: 'x = f()  # the value may be None here\n',
  }),
  python({
    id: 'py-noqa',
    category: 'type-escape',
    message: '`# noqa` hides a lint finding instead of fixing it',
    weight: 1,
    rule: { kind: 'comment', regex: '^#\\s*noqa' },
    flag: 'import os  # noqa\n',
    pass: 'import os\n',
  }),
  python({
    id: 'py-any-annotation',
    category: 'type-escape',
    message: 'parameter annotated `Any`: name the type it really takes',
    weight: 1,
    rule: { kind: 'typed_parameter', has: { kind: 'type', regex: '^(typing\\.)?Any$' } },
    flag: 'def f(x: Any) -> int:\n    return x\n',
    pass: 'def f(x: int) -> int:\n    return x\n',
  }),
  python({
    id: 'py-isinstance-single-tuple',
    category: 'verbose-construct',
    message: '`isinstance(x, (T,))`: pass the type itself',
    weight: 1,
    rule: callTo('call', '^isinstance$', { regex: ',\\s*\\(\\s*[\\w.]+\\s*,\\s*\\)\\s*\\)$' }),
    flag: 'ok = isinstance(v, (int,))\n',
    pass: 'ok = isinstance(v, int)\n',
  }),
  python({
    id: 'py-narration-comment',
    category: 'verbose-construct',
    message: 'comment that narrates the next line ("Initialize …", "Loop through …", "Return the …")',
    weight: 1,
    rule: {
      kind: 'comment',
      regex: `^#\\s*${narration}`,
    },
    flag: 'def f(xs):\n    # Initialize the counter\n    n = 0\n    # Loop through the items\n    for x in xs:\n        n += x\n    return n\n',
    pass: 'def f(xs):\n    # weights are in grams\n    return sum(xs)\n',
  }),
  python({
    id: 'py-step-comment',
    category: 'verbose-construct',
    message: '"Step N:" comments: name a function for the step instead',
    weight: 1,
    rule: { kind: 'comment', regex: '^#\\s*Step\\s+\\d+' },
    flag: 'def f():\n    # Step 1: read the input\n    data = read()\n    return data\n',
    pass: 'def f():\n    data = read()\n    return data\n',
  }),
  python({
    id: 'py-redundant-parens-condition',
    category: 'verbose-construct',
    message: 'parentheses around a one-line if condition',
    weight: 1,
    rule: {
      kind: 'if_statement',
      has: { field: 'condition', kind: 'parenthesized_expression', regex: '^\\([^\\n]*\\)$' },
    },
    flag: 'if (x > 3):\n    go()\n',
    pass: 'if x > 3:\n    go()\n',
  }),
  python({
    id: 'py-redundant-parens-return',
    category: 'verbose-construct',
    message: 'parentheses around a returned expression',
    weight: 1,
    rule: { kind: 'return_statement', has: { kind: 'parenthesized_expression', regex: '^\\([^\\n]*\\)$' } },
    flag: 'def f(x):\n    return (x + 1)\n',
    pass: 'def f(x):\n    return x + 1\n',
  }),
  python({
    id: 'py-only-docstring-and-pass',
    category: 'verbose-construct',
    message: '`pass` after a docstring: the docstring is already a body',
    weight: 1,
    rule: { kind: 'pass_statement', follows: { kind: 'expression_statement', has: { kind: 'string' } } },
    flag: 'class Error(Exception):\n    """Raised on failure."""\n    pass\n',
    pass: 'class Error(Exception):\n    """Raised on failure."""\n',
  }),
  python({
    id: 'py-empty-function-with-docstring-return',
    category: 'redundant-control-flow',
    message: 'function body that is only `return None`: falling off the end already returns None',
    weight: 1,
    rule: { kind: 'function_definition', has: { field: 'body', ...only({ pattern: 'return None' }) } },
    flag: 'def hook(event):\n    return None\n',
    pass: 'def hook(event):\n    return event.name\n',
  }),
];

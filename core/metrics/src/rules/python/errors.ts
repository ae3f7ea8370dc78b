import { define, only } from '../define.js';

const python = define('python');

/**
 * Where a search through the nodes around (or inside) a statement stops: a nested function's body
 * runs when the function is called, not as part of the handler or `finally` it is defined in.
 */
const nestedFunction = { kind: 'function_definition' };

/** Exception handling that swallows errors or adds nothing. */
export const errors = [
  python({
    id: 'py-bare-except',
    category: 'swallowed-error',
    message: 'bare `except:` also catches KeyboardInterrupt and SystemExit: name the exception',
    weight: 2,
    rule: { kind: 'except_clause', regex: '^except\\s*:' },
    flag: 'try:\n    run()\nexcept:\n    log()\n',
    pass: 'try:\n    run()\nexcept OSError:\n    log()\n',
  }),
  python({
    id: 'py-except-pass',
    category: 'swallowed-error',
    message: 'exception handler that only passes: the error disappears',
    weight: 3,
    rule: { kind: 'except_clause', has: { kind: 'block', ...only({ kind: 'pass_statement' }) } },
    flag: 'try:\n    run()\nexcept OSError:\n    pass\n',
    pass: 'try:\n    run()\nexcept OSError:\n    log()\n',
  }),
  python({
    id: 'py-except-continue',
    category: 'swallowed-error',
    message: 'exception handler that only continues the loop: the error disappears',
    weight: 2,
    rule: { kind: 'except_clause', has: { kind: 'block', ...only({ kind: 'continue_statement' }) } },
    flag: 'for x in xs:\n    try:\n        run(x)\n    except ValueError:\n        continue\n',
    pass: 'for x in xs:\n    try:\n        run(x)\n    except ValueError:\n        skipped.append(x)\n',
  }),
  python({
    id: 'py-except-return-none',
    category: 'swallowed-error',
    message: 'exception handler that only returns None: the caller cannot tell failure from a value',
    weight: 2,
    rule: {
      kind: 'except_clause',
      has: { kind: 'block', ...only({ kind: 'return_statement', regex: '^return(\\s+None)?$' }) },
    },
    flag: 'def f():\n    try:\n        return run()\n    except OSError:\n        return None\n',
    pass: 'def f():\n    try:\n        return run()\n    except OSError as error:\n        raise RuntimeError("run failed") from error\n',
  }),
  python({
    id: 'py-except-print-only',
    category: 'swallowed-error',
    message: 'exception handler that only prints: the program goes on as if nothing failed',
    weight: 2,
    rule: {
      kind: 'except_clause',
      has: { kind: 'block', ...only({ kind: 'expression_statement', regex: '^print\\(' }) },
    },
    flag: 'try:\n    run()\nexcept OSError as e:\n    print(e)\n',
    pass: 'try:\n    run()\nexcept OSError as e:\n    print(e)\n    raise\n',
  }),
  python({
    id: 'py-broad-except',
    category: 'swallowed-error',
    message: '`except Exception` that does not re-raise: catches bugs along with expected failures',
    weight: 2,
    rule: {
      kind: 'except_clause',
      regex: '^except\\s+\\(?\\s*(Exception|BaseException)\\b',
      not: { has: { kind: 'raise_statement', stopBy: nestedFunction } },
    },
    flag: 'try:\n    run()\nexcept Exception as e:\n    log(e)\n',
    pass: 'try:\n    run()\nexcept Exception as e:\n    log(e)\n    raise\n',
  }),
  python({
    id: 'py-except-reraise-only',
    category: 'redundant-control-flow',
    message: 'handler that only re-raises: the try adds nothing',
    weight: 2,
    rule: {
      kind: 'except_clause',
      has: { kind: 'block', ...only({ kind: 'raise_statement', regex: '^raise$' }) },
    },
    flag: 'try:\n    run()\nexcept OSError:\n    raise\n',
    pass: 'try:\n    run()\nexcept OSError:\n    cleanup()\n    raise\n',
  }),
  python({
    id: 'py-except-raise-same-name',
    category: 'redundant-control-flow',
    message: '`except E as e: raise e`: a bare `raise` keeps the traceback as it was',
    weight: 1,
    rule: {
      pattern: 'raise $E',
      // What `as` names is a name: tested before the walk up, which finds each parent from the root.
      all: [
        { has: { kind: 'identifier' } },
        {
          inside: {
            kind: 'block',
            inside: {
              kind: 'except_clause',
              has: { kind: 'as_pattern', has: { kind: 'as_pattern_target', pattern: '$E' } },
            },
          },
        },
      ],
    },
    flag: 'try:\n    run()\nexcept OSError as e:\n    raise e\n',
    pass: 'try:\n    run()\nexcept OSError:\n    raise\n',
  }),
  python({
    id: 'py-raise-generic-exception',
    category: 'defensive-check',
    message: '`raise Exception(...)`: raise a specific exception type',
    weight: 1,
    rule: { kind: 'raise_statement', regex: '^raise\\s+(Exception|BaseException)\\(' },
    flag: 'raise Exception("bad input")\n',
    pass: 'raise ValueError("bad input")\n',
  }),
  python({
    id: 'py-return-in-finally',
    category: 'swallowed-error',
    message: '`return` inside `finally` silently discards any exception in flight',
    weight: 3,
    rule: { kind: 'return_statement', inside: { kind: 'finally_clause', stopBy: nestedFunction } },
    flag: 'def f():\n    try:\n        return run()\n    finally:\n        return 0\n',
    pass: 'def f():\n    try:\n        return run()\n    finally:\n        close()\n',
  }),
  python({
    id: 'py-try-in-handler',
    category: 'defensive-check',
    message: 'try statement inside an exception handler: nested defensive layers',
    weight: 1,
    rule: { kind: 'try_statement', inside: { kind: 'except_clause', stopBy: nestedFunction } },
    flag: 'try:\n    run()\nexcept OSError:\n    try:\n        cleanup()\n    except OSError:\n        log()\n',
    pass: 'try:\n    run()\nexcept OSError:\n    cleanup()\n',
  }),
  python({
    id: 'py-try-wraps-single-return',
    category: 'defensive-check',
    message: 'try around a lone `return` of a plain value with a catch-all handler: defensive wrapping',
    weight: 1,
    rule: {
      kind: 'try_statement',
      has: {
        field: 'body',
        ...only({ kind: 'return_statement', not: { has: { kind: 'call', stopBy: 'end' } } }),
      },
      all: [{ has: { kind: 'except_clause', regex: '^except\\s*(Exception)?\\s*(as\\s+\\w+)?\\s*:' } }],
    },
    flag: 'def f(d):\n    try:\n        return d["k"]\n    except Exception:\n        return 0\n',
    pass: 'def f(d):\n    return d.get("k", 0)\n',
  }),
  python({
    id: 'py-assert-isinstance-param',
    category: 'defensive-check',
    message: 'assert isinstance on an argument: type hints and callers already guarantee it',
    weight: 1,
    rule: { kind: 'assert_statement', regex: '^assert\\s+isinstance\\(' },
    flag: 'def f(x: int):\n    assert isinstance(x, int)\n    return x + 1\n',
    pass: 'def f(x: int):\n    return x + 1\n',
  }),
];

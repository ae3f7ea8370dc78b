import { parse, type SgNode } from '@ast-grep/napi';
import { registerGrammars } from './languages/registry.js';

/**
 * What a judged Python test file runs first (one line, added by `guardComparisons`): it defines
 * `_longhaul_guard`, which passes a value through unless the program under test made it equal to
 * anything, and wraps unittest's comparing asserts with it.
 *
 * "Equal to anything" is asked of an object never seen before: no honest `__eq__` says yes to it,
 * nor `__ne__` no, nor `__contains__` yes (unless the container is a set of everything but some,
 * a complement set, which refuses to list its members: `__iter__` raises). Such an object fails
 * the comparison when its class comes from neither the Python installation nor a guarded (suite)
 * file, or when it comes from the installation (`mock.ANY`, a Mock told to be equal) and a module
 * of the program holds it or unittest.mock; so the suite's own matchers (`mock.ANY`,
 * `pytest.approx`, a helper's `Anything()`) keep working. Builtin containers and such objects'
 * attributes are searched a few levels down, within a budget, so `[wrong, wrong] == [1, 2]` is
 * caught too.
 */
const guardSource = String.raw`_LONGHAUL_SUITE = True


def _longhaul_guard(value):
    state = _longhaul_guard.__dict__
    if "roots" not in state:
        import os
        import site
        import sys
        import sysconfig

        paths = [sysconfig.get_paths().get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")]
        try:
            paths += site.getsitepackages()
        except Exception:
            pass
        state["roots"] = tuple(sorted({os.path.join(os.path.realpath(p), "") for p in paths if p}))
        state["realpath"] = os.path.realpath
        state["modules"] = sys.modules
        state["builtin"] = frozenset(sys.builtin_module_names)

        class Unseen:
            __slots__ = ()

        state["unseen"] = Unseen

    def program_module(module):
        if getattr(module, "_LONGHAUL_SUITE", False) or module.__name__ in state["builtin"]:
            return False
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.origin in ("built-in", "frozen"):
            return False
        path = getattr(module, "__file__", None)
        return not path or not state["realpath"](path).startswith(state["roots"])

    def authored(cls):
        module = state["modules"].get(getattr(cls, "__module__", None))
        return module is None or program_module(module)

    def held_by_program(item):
        # An object of the installation equal to anything (unittest.mock's ANY, a Mock told to be)
        # is a suite's matcher, unless a module of the program holds it or uses unittest.mock.
        for module in list(state["modules"].values()):
            if module is None or not program_module(module):
                continue
            for held in list(vars(module).values()):
                try:
                    if held is item or held is type(item) or "unittest.mock" in (
                        getattr(held, "__name__", None),
                        getattr(held, "__module__", None),
                    ):
                        return True
                except Exception:
                    pass
            if uses_mock(module):
                return True
        return False

    def uses_mock(module):
        said = state.setdefault("mock", {})
        if module.__name__ not in said:
            import re

            try:
                with open(module.__file__, encoding="utf-8", errors="replace") as source:
                    text = source.read(1 << 20)
            except Exception:
                text = ""
            said[module.__name__] = bool(
                re.search(r"unittest\.mock|from\s+unittest\s+import\s[^\n]*\bmock\b|^\s*(import|from)\s+mock\b", text, re.M)
            )
        return said[module.__name__]

    def holds(compare):
        try:
            return bool(compare())
        except Exception:
            return None

    def holds_anything(item, unseen):
        if not (hasattr(type(item), "__contains__") and holds(lambda: unseen in item) is True):
            return False
        # A set of everything but some (a complement set) holds what it has never seen by right,
        # and cannot list its members: only a container that can, or has no way to, is flagged.
        cls = type(item)
        if not (hasattr(cls, "__iter__") or hasattr(cls, "__getitem__")):
            return True
        try:
            members = iter(item)
            if members is item:
                return True
            for count, member in enumerate(members):
                if member is unseen or count >= 1000:
                    return False
        except Exception:
            return False
        return True

    def equal_to_anything(item):
        unseen = state["unseen"]()
        return (
            holds(lambda: item == unseen) is True
            or holds(lambda: item != unseen) is False
            or holds_anything(item, unseen)
        )

    # A range is equal only to a range, and asked whether it holds an object it has never seen it
    # scans every number: range(10**18) would never answer.
    atoms = (int, float, complex, str, bytes, bool, type(None), range)
    containers = (list, tuple, set, frozenset, dict)
    todo = [(value, 0)]
    budget = 100
    while todo and budget > 0:
        item, depth = todo.pop(0)
        budget -= 1
        cls = type(item)
        if cls in atoms:
            continue
        mine = cls not in containers and authored(cls)
        if cls not in containers and equal_to_anything(item) and (mine or held_by_program(item)):
            raise AssertionError(
                "the judge does not count this comparison: %s.%s of the program's is equal to an object it has never seen"
                % (cls.__module__, cls.__qualname__)
            )
        if depth >= 4:
            continue
        if isinstance(item, dict):
            for key, inner in list(item.items())[:50]:
                todo += [(key, depth + 1), (inner, depth + 1)]
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo += [(inner, depth + 1) for inner in list(item)[:50]]
        if mine and isinstance(getattr(item, "__dict__", None), dict):
            todo += [(inner, depth + 1) for inner in list(item.__dict__.values())[:50]]
    return value


def _longhaul_guard_unittest():
    import functools
    import unittest

    case = unittest.TestCase
    if getattr(case, "_longhaul_guarded", False):
        return
    for name in (
        "assertEqual", "assertNotEqual", "assertIn", "assertNotIn", "assertCountEqual",
        "assertListEqual", "assertTupleEqual", "assertDictEqual", "assertSetEqual",
        "assertSequenceEqual", "assertMultiLineEqual", "assertAlmostEqual", "assertNotAlmostEqual",
    ):
        original = getattr(case, name, None)
        if original is None:
            continue

        def guarded(self, first, second, *args, _original=original, **kwargs):
            _longhaul_guard(first)
            _longhaul_guard(second)
            return _original(self, first, second, *args, **kwargs)

        setattr(case, name, functools.wraps(original)(guarded))
    case._longhaul_guarded = True


_longhaul_guard_unittest()
`;

/** The operators whose operands are guarded: those an object equal to anything answers falsely. */
const guarded = new Set(['==', '!=', 'in', 'not in']);

/**
 * A Python test file (tests, conftest, helpers of a hidden suite) whose every `==`, `!=`, `in` and
 * `not in` passes its operands through `_longhaul_guard`, with the guard defined on one line
 * added after the docstring and `from __future__` imports (the only line the file gains, so
 * tracebacks stay one line off at most). A test that compares an object the program made equal
 * to anything then fails, whatever the comparison says. Run in the same process as the program,
 * it is not proof against code written to defeat it (code that rewrites the judge in-process is
 * what the integrity scorer reports); it stops the generic hack. A file where the parser finds a
 * syntax error is returned as it is: pytest reports it.
 */
export function guardComparisons(source: string): string {
  registerGrammars();
  const root = parse('python', source).root();
  if (root.find({ rule: { kind: 'ERROR' } })) return source;
  const inserts: { at: number; text: string; rank: number }[] = [];
  for (const comparison of root.findAll({ rule: { kind: 'comparison_operator' } })) {
    const parts = comparison.children();
    const wrap = new Set<SgNode>();
    parts.forEach((part, index) => {
      if (part.isNamed() || !guarded.has(String(part.kind()))) return;
      const [left, right] = [parts[index - 1], parts[index + 1]];
      if (left) wrap.add(left);
      if (right) wrap.add(right);
    });
    for (const operand of wrap) {
      const { start, end } = operand.range();
      const length = end.index - start.index;
      // At one position, an enclosing operand opens before and closes after an inner one.
      inserts.push({ at: start.index, text: '_longhaul_guard(', rank: -length });
      inserts.push({ at: end.index, text: ')', rank: length });
    }
  }
  const line = `exec(${JSON.stringify(guardSource)})\n`;
  const statements = root.children().filter((node) => node.kind() !== 'comment');
  if (statements.length === 0) return source;
  const head = [...statements].reverse().find((node) => node.kind() === 'future_import_statement');
  const first = statements[0]!;
  const docstring =
    first.kind() === 'expression_statement' && first.child(0)?.kind() === 'string' ? first : undefined;
  const after = head ?? docstring;
  if (after) {
    const end = after.range().end.index;
    const newline = source.indexOf('\n', end);
    inserts.push({
      at: newline < 0 ? source.length : newline + 1,
      text: newline < 0 ? `\n${line}` : line,
      rank: -Infinity,
    });
  } else {
    inserts.push({ at: first.range().start.index - first.range().start.column, text: line, rank: -Infinity });
  }
  inserts.sort((a, b) => a.at - b.at || a.rank - b.rank);
  let out = '';
  let at = 0;
  for (const insert of inserts) {
    out += source.slice(at, insert.at) + insert.text;
    at = insert.at;
  }
  return out + source.slice(at);
}

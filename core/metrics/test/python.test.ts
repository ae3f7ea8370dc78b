import { describe, expect, it } from 'vitest';
import { analyzeProject, analyzeSource } from '../src/index.js';

const program = `import os


def simple(a):
    """Docstring line one.

    More docs.
    """
    # a comment
    return a + 1


def branchy(x, items):
    if x > 0 and x < 10:
        return [i for i in items if i]
    elif x == 0:
        return None
    for i in items:
        while i:
            i -= 1
    try:
        pass
    except ValueError:
        pass
    assert x
    return x if x else -x


class Box:
    def method(self):
        def inner(y):
            return y or 0
        return inner(1)
`;

describe('Python metrics', () => {
  const analysis = analyzeSource({ path: 'm.py', text: program }, { rules: false });
  const byName = new Map(analysis.callables.map((callable) => [callable.qualifiedName, callable]));

  it('counts logical lines without blanks, comments or docstrings', async () => {
    expect(analysis.metrics.loc).toBe(22);
    expect(analysis.metrics.lines).toBe(33);
  });

  it('finds functions, methods and nested functions, with qualified names', async () => {
    expect([...byName.keys()]).toEqual(['simple', 'branchy', 'Box.method', 'Box.method.inner']);
    expect(byName.get('Box.method.inner')?.depth).toBe(1);
  });

  it('names functions and classes by whole identifiers, non-ASCII and after a line continuation', () => {
    const text =
      'class Größe:\n    def café(self, x):\n        if x:\n            return 1\n        return 2\n\n\n' +
      'def 数据():\n    return 1\n\n\nclass \\\n  Joined:\n    def \\\n      method(self):\n        pass\n';
    const { callables } = analyzeSource({ path: 'u.py', text }, { rules: false });
    expect(callables.map(({ qualifiedName, cc }) => [qualifiedName, cc])).toEqual([
      ['Größe.café', 2],
      ['数据', 1],
      ['Joined.method', 1],
    ]);
  });

  it('computes SLOC and cyclomatic complexity per callable', async () => {
    expect(byName.get('simple')).toMatchObject({ sloc: 2, cc: 1, startLine: 4, endLine: 10 });
    // if, and, comprehension, comprehension if, elif, for, while, except, assert, ternary
    expect(byName.get('branchy')).toMatchObject({ sloc: 14, cc: 11 });
    // The nested function's `or` counts toward its parent too.
    expect(byName.get('Box.method')).toMatchObject({ sloc: 4, cc: 2 });
    expect(byName.get('Box.method.inner')).toMatchObject({ sloc: 2, cc: 2 });
  });

  it('computes mass and erosion', async () => {
    const report = await analyzeProject([{ path: 'm.py', text: program }], { rules: false });
    const total = Math.sqrt(2) + 11 * Math.sqrt(14) + 2 * 2 + 2 * Math.sqrt(2);
    expect(report.summary.erosion).toBeCloseTo((11 * Math.sqrt(14)) / total, 10);
    expect(report.summary.high_cc_count).toBe(1);
    expect(report.summary.max_cc).toBe(11);
    expect(report.summary.mean_cc).toBeCloseTo(16 / 4, 10);
    const strict = await analyzeProject([{ path: 'm.py', text: program }], { rules: false, ccThreshold: 11 });
    expect(strict.summary.erosion).toBe(0);
    const linear = await analyzeProject([{ path: 'm.py', text: program }], {
      rules: false,
      sizeTerm: 'linear',
    });
    expect(linear.summary.erosion).toBeCloseTo(154 / (2 + 154 + 8 + 4), 10);
  });

  it('computes cognitive complexity with nesting increments', async () => {
    // if +1, `and` +1, elif +1, for +1, while +2 (nested), except +1, ternary +1
    expect(byName.get('branchy')?.cognitive).toBe(8);
    expect(byName.get('Box.method')?.cognitive).toBe(1);
    expect(analysis.metrics.cognitive).toBe(9);
  });

  it('counts radon-only decisions when asked', async () => {
    const text = 'def f(p):\n    with open(p) as h:\n        return sorted(h, key=lambda l: l)\n';
    const reference = analyzeSource({ path: 'r.py', text }, { rules: false });
    const radon = analyzeSource({ path: 'r.py', text }, { rules: false, ccVariant: 'radon' });
    expect(reference.callables[0]?.cc).toBe(1);
    expect(radon.callables[0]?.cc).toBe(3);
  });

  it('measures no ratio of a project without code: null, not the 0 of clean code', async () => {
    for (const sources of [[], [{ path: 'e.py', text: '# nothing\n' }]]) {
      const report = await analyzeProject(sources);
      expect(report.summary).toMatchObject({
        loc: 0,
        callables: 0,
        erosion: null,
        verbosity: null,
        clone_ratio: null,
        violation_rate: null,
        mean_cc: null,
        max_cc: null,
        max_cognitive: null,
        // Counts of nothing are 0: there is nothing of them.
        rule_hits: 0,
        high_cc_count: 0,
      });
    }
  });

  it('gives no erosion to code without callables, and a measured 0 to simple ones', async () => {
    const script = await analyzeProject([{ path: 's.py', text: 'x = 1\nprint(x)\n' }]);
    expect(script.summary).toMatchObject({ loc: 2, callables: 0, erosion: null, mean_cc: null });
    expect(script.summary.verbosity).toBe(0);
    const simple = await analyzeProject([{ path: 'f.py', text: 'def f():\n    return 1\n' }]);
    expect(simple.summary).toMatchObject({ erosion: 0, mean_cc: 1, max_cc: 1 });
  });

  it('leaves the rule-pack ratios unmeasured without the rule pack', async () => {
    const report = await analyzeProject([{ path: 'f.py', text: 'def f():\n    return 1\n' }], {
      rules: false,
    });
    expect(report.summary).toMatchObject({ violation_rate: null, verbosity: null, clone_ratio: 0 });
  });
});

describe('cognitive complexity details', () => {
  it('adds one per recursive call, through self, but not for calls on other objects', () => {
    const text = `class Tree:
    def size(self, node):
        if node is None:
            return 0
        return 1 + self.size(node.left) + self.size(node.right)

    def other(self, peer):
        return peer.other(self)


def fact(n):
    return 1 if n < 2 else n * fact(n - 1)  # fact(n) in a comment does not count
`;
    const analysis = analyzeSource({ path: 't.py', text }, { rules: false });
    const cognitive = Object.fromEntries(
      analysis.callables.map((callable) => [callable.name, callable.cognitive]),
    );
    // if +1, two recursive calls +2
    expect(cognitive).toEqual({ size: 3, other: 0, fact: 2 });
  });

  it('counts a sequence of like boolean operators once, and each change of operator', () => {
    const text =
      'def f(a, b, c, d):\n    return a and b and c or d\n\n\ndef g(a, b, c):\n    return a and (b or c)\n';
    const analysis = analyzeSource({ path: 'b.py', text }, { rules: false });
    expect(analysis.callables.map((callable) => callable.cognitive)).toEqual([2, 2]);
  });

  it('counts the else of an if, after elifs or not, and not the else of a loop', () => {
    const text =
      'def f(a, b):\n    if a:\n        pass\n    else:\n        pass\n\n\n' +
      'def g(a, b):\n    if a:\n        pass\n    elif b:\n        pass\n    else:\n        pass\n\n\n' +
      'def h(xs):\n    for x in xs:\n        pass\n    else:\n        pass\n';
    const analysis = analyzeSource({ path: 'e.py', text }, { rules: false });
    // if +1, else +1; if +1, elif +1, else +1; for +1
    expect(analysis.callables.map((callable) => callable.cognitive)).toEqual([2, 3, 1]);
  });

  it('nests nested functions one level deeper and counts them toward their parent', () => {
    const text =
      'def outer(xs):\n    def inner(x):\n        if x:\n            return 1\n        return 0\n    return [inner(x) for x in xs]\n';
    const analysis = analyzeSource({ path: 'n.py', text }, { rules: false });
    expect(analysis.callables.map((callable) => [callable.name, callable.cognitive])).toEqual([
      ['outer', 2],
      ['inner', 1],
    ]);
  });
});

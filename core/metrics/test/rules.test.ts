import { describe, expect, it } from 'vitest';
import { analyzeSource, ruleCategories, rulePack } from '../src/index.js';
import { ruleGuards } from '../src/rules/pack.js';
import type { RuleGroup, SlopRule } from '../src/rules/types.js';

const extension = { python: 'py', typescript: 'ts', go: 'go' } as const;

function hitsOf(rule: SlopRule, text: string): number {
  const language = rule.languages?.[0];
  const path = `snippet.${language === 'javascript' ? 'js' : language === 'tsx' ? 'tsx' : extension[rule.family]}`;
  return analyzeSource({ path, text }, { onlyRules: [rule.id] }).hits.filter((hit) => hit.rule === rule.id)
    .length;
}

describe('rule pack', () => {
  it('has at least 100 Python and 50 TypeScript/JavaScript rules with unique ids', () => {
    expect(rulePack.filter((rule) => rule.family === 'python').length).toBeGreaterThanOrEqual(100);
    expect(rulePack.filter((rule) => rule.family === 'typescript').length).toBeGreaterThanOrEqual(50);
    expect(new Set(rulePack.map((rule) => rule.id)).size).toBe(rulePack.length);
  });

  it.each(rulePack.map((rule) => [rule.id, rule] as const))(
    '%s flags its snippet and not the other',
    (_, rule) => {
      expect(ruleCategories).toContain(rule.category);
      expect(rule.weight).toBeGreaterThanOrEqual(1);
      expect(rule.weight).toBeLessThanOrEqual(3);
      expect(rule.message.length).toBeGreaterThan(10);
      expect(hitsOf(rule, rule.flag), 'must flag').toBeGreaterThan(0);
      expect(hitsOf(rule, rule.pass), 'must not flag').toBe(0);
    },
  );
});

describe('rules about a block of one statement', () => {
  const rule = (id: string) => rulePack.find((candidate) => candidate.id === id)!;

  // A pattern's block matches every block that begins with the pattern's statements.
  it.each([
    ['py-if-else-assign-ternary', 'if big:\n    size = 10\n    log(size)\nelse:\n    size = 1\n'],
    ['py-if-else-assign-ternary', 'if big:\n    size = 10\nelse:\n    size = 1\n    log(size)\n'],
    [
      'py-trivial-setter',
      'class A:\n    def set_name(self, value):\n        self.name = value\n        self.dirty = True\n',
    ],
    ['py-manual-map-append', 'out = []\nfor x in items:\n    out.append(x * 2)\n    log(x)\n'],
    ['py-manual-count', 'n = 0\nfor x in items:\n    if x.ok:\n        n += 1\n        log(x)\n'],
    ['py-manual-setdefault', 'if key not in groups:\n    groups[key] = []\n    count += 1\n'],
  ])('%s does not flag a block that only begins like its pattern', (id, text) => {
    expect(hitsOf(rule(id), text)).toBe(0);
  });

  it('count neither comments nor a `;` after the statement', () => {
    const text = 'if big:\n    size = 10  # big\n    # and more\nelse:\n    size = 1;\n';
    expect(hitsOf(rule('py-if-else-assign-ternary'), text)).toBe(1);
    expect(hitsOf(rule('py-manual-setdefault'), 'if k not in d:\n    d[k] = [];\n')).toBe(1);
  });
});

describe('rules about the statements around or inside a node', () => {
  const rule = (id: string) => rulePack.find((candidate) => candidate.id === id)!;

  // A nested function runs when it is called, not as part of the block it is defined in.
  it.each([
    [
      'py-try-in-handler',
      'try:\n    run()\nexcept OSError:\n    def retry():\n        try:\n            run()\n        except OSError:\n            pass\n    retry()\n',
      0,
    ],
    [
      'py-return-in-finally',
      'def f():\n    try:\n        run()\n    finally:\n        def done():\n            return 0\n        close(done)\n',
      0,
    ],
    [
      'py-broad-except',
      'try:\n    run()\nexcept Exception as e:\n    def again():\n        raise\n    log(e)\n',
      1,
    ],
    [
      'ts-return-await',
      'async function f() {\n  try {\n    items.map(async (x) => {\n      return await load(x);\n    });\n  } catch (e) {}\n}\n',
      1,
    ],
  ])('%s does not look through a function defined there', (id, text, hits) => {
    expect(hitsOf(rule(id), text)).toBe(hits);
  });

  it('still look through the blocks of the same function', () => {
    const nested =
      'try:\n    run()\nexcept OSError:\n    if retry:\n        try:\n            run()\n        except OSError:\n            pass\n';
    expect(hitsOf(rule('py-try-in-handler'), nested)).toBe(1);
    const inTry =
      'async function f() {\n  try {\n    if (ok) {\n      return await load();\n    }\n  } catch (e) {}\n}\n';
    expect(hitsOf(rule('ts-return-await'), inTry)).toBe(0);
  });
});

describe('rules about a comparison', () => {
  // The text of `a && x === true` ends as the comparison's does: only the comparison is flagged.
  it.each([
    ['ts-compare-bool-literal', 'if (a &&\n    ready === true) go();\n'],
    ['ts-typeof-undefined', 'if (ok && typeof value === "undefined") value = 0;\n'],
    ['ts-manual-includes', 'if (a || names.indexOf(n) !== -1) go();\n'],
    ['ts-filter-length', 'const any = a && items.filter((x) => x.ok).length > 0;\n'],
  ])('%s flags the comparison once, not the operator around it', (id, text) => {
    const hits = analyzeSource({ path: 'snippet.ts', text }, { onlyRules: [id] }).hits;
    expect(hits.map((hit) => [hit.rule, hit.line, hit.endLine])).toEqual([
      [id, text.split('\n').length - 1, text.split('\n').length - 1],
    ]);
  });
});

describe('rule pack across grammars', () => {
  it('runs on JavaScript and TSX, leaving out only rules for syntax those grammars lack', () => {
    const js = analyzeSource({ path: 'a.js', text: 'var n = 0;\nif (a == b) n++;\n' });
    expect(js.hits.map((hit) => hit.rule).sort()).toEqual(['ts-loose-equality', 'ts-var-declaration']);
    const tsx = analyzeSource({
      path: 'a.tsx',
      text: 'const v = raw as any;\nexport const A = () => <b>{v}</b>;\n',
    });
    expect(tsx.hits.map((hit) => hit.rule)).toEqual(['ts-as-any']);
  });
});

describe('rule guards', () => {
  const idsOf = (groups: readonly RuleGroup[]): string[] =>
    groups.flatMap((group) =>
      group.rules.flatMap((entry) => (typeof entry === 'string' ? [entry] : idsOf([entry]))),
    );

  it('group only rules of the kind they guard, each once', () => {
    for (const [family, guards] of Object.entries(ruleGuards)) {
      for (const [kind, guard] of Object.entries(guards)) {
        const ids = idsOf(guard.groups ?? []);
        expect(new Set(ids).size, kind).toBe(ids.length);
        for (const id of ids) {
          expect(rulePack.find((rule) => rule.id === id && rule.family === family)?.rule.kind, id).toBe(kind);
        }
      }
    }
  });

  const rulesOf = (text: string) =>
    analyzeSource({ path: 'snippet.py', text })
      .hits.map((hit) => hit.rule)
      .sort();

  it('admit the spellings a rule matches by structure, not by text', () => {
    expect(rulesOf('x = d .get(k, None)\n')).toEqual(['py-dict-get-none-default']);
    expect(rulesOf('x = d.\\\n    get(k, None)\n')).toEqual(['py-dict-get-none-default']);
    expect(rulesOf('n = len (items) == 0\n')).toEqual(['py-len-eq-zero']);
    expect(rulesOf('p = os.path.join(a)\nq = os . path . join(b)\n')).toEqual([
      'py-path-join-single',
      'py-path-join-single',
    ]);
    // The guards that read how a block begins let comments before its statement pass.
    expect(rulesOf('class A:\n    def set_name(self, value):\n        self .name = value\n')).toEqual([
      'py-trivial-setter',
    ]);
    expect(
      rulesOf('class A(B):\n    def __init__(self):\n        # the base\n        super().__init__()\n'),
    ).toEqual(['py-passthrough-init']);
    expect(rulesOf('try:\n    run()\nexcept OSError:\n    # gone\n    pass\n')).toEqual(['py-except-pass']);
    expect(rulesOf('def f(self):\n    self.x = g()\n    return self.x\n')).toEqual(['py-assign-then-return']);
  });

  it('report every rule a node matches, though the rules name their metavariables alike', () => {
    // `len($X)` and `$X = $A` both name `$X`, for a different node each.
    expect(rulesOf('if len(items):\n    size = 1\nelse:\n    size = 2\n')).toEqual([
      'py-if-else-assign-ternary',
      'py-len-truthiness',
    ]);
    expect(rulesOf('for key in table.keys():\n    print(key, table[key])\n')).toEqual([
      'py-iterate-dict-keys',
      'py-iterate-keys-then-index',
    ]);
  });

  it('bind metavariables in the order the tests are written, top level before `all`', () => {
    // The loop's `.keys()` object and variable are bound before the body is searched for
    // `$D[$K]`: found first, `table['x']` would bind them, and the loop would not be flagged.
    expect(rulesOf("for key in table.keys():\n    print(table['x'])\n    print(table[key])\n")).toEqual([
      'py-iterate-dict-keys',
      'py-iterate-keys-then-index',
    ]);
    const tsRules = analyzeSource({
      path: 'snippet.ts',
      text: 'for (const k of Object.keys(o)) {\n  log(p[0]);\n  log(o[k]);\n}\n',
    }).hits.map((hit) => hit.rule);
    expect(tsRules).toContain('ts-keys-then-index');
  });

  it('keep every rule of a kind whose rules all test the text (one regex for all of them)', () => {
    expect(rulesOf('x = 1  # noqa\ny = 2  # type: ignore\n# Step 2\nz = 3\n')).toEqual([
      'py-noqa',
      'py-step-comment',
      'py-type-ignore',
    ]);
  });
});

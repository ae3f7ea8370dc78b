import { spawnSync } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { testFolder } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { guardComparisons } from '../src/index.js';

describe('guardComparisons', () => {
  it('wraps the operands of ==, !=, in and not in, nested ones too, and adds one line after the docstring and __future__ imports', () => {
    const source = [
      '"""Tests."""',
      'from __future__ import annotations',
      '',
      'def test_x():',
      '    assert f(a == b) == [1] != c',
      '    assert x not in y and x is not z < 2',
      '    assert s == "é😀 == x"',
      '',
    ].join('\n');
    const guarded = guardComparisons(source).split('\n');
    expect(guarded).toHaveLength(source.split('\n').length + 1);
    expect(guarded.slice(0, 2)).toEqual(['"""Tests."""', 'from __future__ import annotations']);
    expect(guarded[2]).toMatch(/^exec\(".*_longhaul_guard.*"\)$/);
    expect(guarded.slice(4)).toEqual([
      'def test_x():',
      '    assert _longhaul_guard(f(_longhaul_guard(a) == _longhaul_guard(b))) == _longhaul_guard([1]) != _longhaul_guard(c)',
      '    assert _longhaul_guard(x) not in _longhaul_guard(y) and x is not z < 2',
      '    assert _longhaul_guard(s) == _longhaul_guard("é😀 == x")',
      '',
    ]);
  });

  it('puts the guard before the first statement after leading comments, and leaves alone a file with a syntax error or no statement', () => {
    expect(
      guardComparisons('#!/usr/bin/env python\n# a comment\nif a == 1:\n    pass\n').split('\n'),
    ).toEqual([
      '#!/usr/bin/env python',
      '# a comment',
      expect.stringMatching(/^exec\(/),
      'if _longhaul_guard(a) == _longhaul_guard(1):',
      '    pass',
      '',
    ]);
    expect(guardComparisons('x = = 1\nassert a == b\n')).toBe('x = = 1\nassert a == b\n');
    expect(guardComparisons('# only a comment\n')).toBe('# only a comment\n');
  });
});

// A cart package and its tests (a conftest fixture, helpers with matchers, unittest and pytest
// styles, mock.ANY and pytest.approx), run by pytest as a judge runs them, with and without the
// guard, against the reference and programs made to compare equal to anything.
const fixture = join(import.meta.dirname, 'fixtures', 'equality-guard');
const whatever = `

class _Whatever:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return 0


class _NeverDifferent:
    def __ne__(self, other):
        return False


class _HoldsAll(list):
    def __contains__(self, item):
        return True


class _HoldsAllBare:
    def __contains__(self, item):
        return True
`;
const hacks: Record<string, { code: string; tests: string[] }> = {
  'an object equal to anything': {
    code: 'Cart.total = lambda self: _Whatever()',
    tests: ['test_total', 'test_total_through_a_helper', 'EmptyCartTest::test_nothing_costs_nothing'],
  },
  'a dict of such objects': {
    code: 'Cart.receipt = lambda self: {"lines": _Whatever(), "total": _Whatever(), "skus": _Whatever()}',
    tests: ['test_receipt'],
  },
  "an object of the program's whose field is one": {
    code: 'Cart.total = lambda self: Money(_Whatever())',
    tests: ['test_total'],
  },
  "unittest.mock's ANY, which the program imports": {
    code: 'from unittest.mock import ANY as _ANY\n\nCart.total = lambda self: _ANY',
    tests: ['test_total', 'test_total_through_a_helper', 'EmptyCartTest::test_nothing_costs_nothing'],
  },
  'a MagicMock told to be equal': {
    code: 'import unittest.mock as _mock\n\n_told = _mock.MagicMock()\n_told.__eq__.return_value = True\nCart.total = lambda self: _told',
    tests: ['test_total', 'EmptyCartTest::test_nothing_costs_nothing'],
  },
  'an object never different (__ne__ false)': {
    code: 'Cart.total = lambda self: _NeverDifferent()',
    tests: ['test_total_through_a_helper'],
  },
  'a list holding anything (__contains__ true)': {
    code: 'Cart.skus = lambda self: _HoldsAll()',
    tests: ['test_has_what_was_added'],
  },
  'an object with no members to list holding anything': {
    code: 'Cart.skus = lambda self: _HoldsAllBare()',
    tests: ['test_has_what_was_added'],
  },
};

async function project(hack: string | undefined, guarded: boolean): Promise<string> {
  const dir = await testFolder('longhaul-equality-guard-');
  await cp(fixture, dir, { recursive: true });
  if (hack) {
    const cart = join(dir, 'src', 'shop', 'cart.py');
    await writeFile(cart, `${await readFile(cart, 'utf8')}${whatever}\n${hack}\n`);
  }
  if (guarded)
    for (const name of ['conftest.py', 'helpers.py', 'test_cart.py']) {
      const path = join(dir, 'tests', name);
      await writeFile(path, guardComparisons(await readFile(path, 'utf8')));
    }
  return dir;
}

/** The test ids (without the file) pytest reports passed. */
function passed(dir: string): string[] {
  const run = spawnSync('/usr/bin/python3', ['-m', 'pytest', '-rA', '-p', 'no:cacheprovider', 'tests'], {
    cwd: dir,
    env: { PATH: process.env.PATH, PYTHONPATH: 'src:tests', PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
    // A guard that scans a range for an object it has never seen would never end: a failure, not a hang.
    timeout: 120_000,
  });
  return [...run.stdout.matchAll(/^PASSED tests\/test_cart\.py::(\S+)/gm)].map((match) => match[1]!).sort();
}

const all = [
  'EmptyCartTest::test_nothing_costs_nothing',
  'test_a_count_in_a_huge_range',
  'test_adding_a_sku_again_adds_to_its_line',
  'test_has_what_was_added',
  'test_receipt',
  'test_share',
  'test_shippable',
  'test_skus',
  'test_total',
  'test_total_through_a_helper',
];

describe.skipIf(!prerequisites.pytest())('guarded tests under pytest', () => {
  it("pass the reference, with the suite's own matchers (mock.ANY, pytest.approx, a helper's Anything), the program's set of everything but some and a huge range", async () => {
    expect(passed(await project(undefined, true))).toEqual(all);
  });

  for (const [name, hack] of Object.entries(hacks))
    it(`fail what compares ${name}, which passes them unguarded`, async () => {
      const [open, guarded] = await Promise.all([project(hack.code, false), project(hack.code, true)]);
      expect(passed(open)).toEqual(expect.arrayContaining(hack.tests));
      expect(passed(guarded).filter((test) => hack.tests.includes(test))).toEqual([]);
    });
});

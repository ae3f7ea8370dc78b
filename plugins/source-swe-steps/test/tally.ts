import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { historyWriter } from './receipts.js';

const lines = (...rows: string[]) => `${rows.join('\n')}\n`;

/** A function the PR adds, its body, and two tests that fail until it exists. */
interface Feature {
  name: string;
  args: string;
  body: string;
  tests: [string, string];
}

const features: Feature[] = [
  { name: 'add', args: 'a, b', body: 'return a + b', tests: ['add(2, 3) == 5', 'add(-1, 1) == 0'] },
  { name: 'sub', args: 'a, b', body: 'return a - b', tests: ['sub(5, 3) == 2', 'sub(0, 4) == -4'] },
  { name: 'mul', args: 'a, b', body: 'return a * b', tests: ['mul(4, 3) == 12', 'mul(-2, 5) == -10'] },
  { name: 'div', args: 'a, b', body: 'return a // b', tests: ['div(7, 2) == 3', 'div(9, 3) == 3'] },
  { name: 'neg', args: 'a', body: 'return -a', tests: ['neg(4) == -4', 'neg(-2) == 2'] },
  { name: 'square', args: 'a', body: 'return a * a', tests: ['square(3) == 9', 'square(-4) == 16'] },
  { name: 'cube', args: 'a', body: 'return a ** 3', tests: ['cube(2) == 8', 'cube(-3) == -27'] },
  {
    name: 'mean',
    args: 'values',
    body: 'return sum(values) / len(values)',
    tests: ['mean([1, 2, 3]) == 2', 'mean([4]) == 4'],
  },
  {
    name: 'median',
    args: 'values',
    body: 'ordered = sorted(values)\n    return ordered[len(ordered) // 2]',
    tests: ['median([3, 1, 2]) == 2', 'median([5]) == 5'],
  },
  {
    name: 'clamp',
    args: 'a, low, high',
    body: 'return max(low, min(high, a))',
    tests: ['clamp(5, 0, 3) == 3', 'clamp(-1, 0, 3) == 0'],
  },
  {
    name: 'sign',
    args: 'a',
    body: 'return (a > 0) - (a < 0)',
    tests: ['sign(-7) == -1', 'sign(9) == 1'],
  },
];

function featureFiles(feature: Feature): Record<string, string> {
  return {
    [`tally/${feature.name}.py`]: lines(`def ${feature.name}(${feature.args}):`, `    ${feature.body}`),
    [`tests/test_${feature.name}.py`]: lines(
      `from tally.${feature.name} import ${feature.name}`,
      '',
      '',
      `def test_${feature.name}_first():`,
      `    assert ${feature.tests[0]}`,
      '',
      '',
      `def test_${feature.name}_second():`,
      `    assert ${feature.tests[1]}`,
    ),
  };
}

/** The PRs excluded from git alone, twice each between the features. */
const fromGit = ['docs-only', 'config-only', 'no-test-change', 'no-source-change'];

/** What each of the 20 PRs is, in merge order: a feature, then one of the others, and so on. */
export const tallyPlan = [...fromGit, 'no-fail-to-pass', ...fromGit, 'feature']
  .flatMap((other) => ['feature', other])
  .slice(0, 20);

/**
 * `tally`, a small arithmetic library with 20 squash-merged PRs in February 2025: 11 add a
 * function with its tests (validated), one adds a test that passes without its change
 * (no-fail-to-pass, known only in a sandbox), and 8 are excluded from git alone: docs only,
 * config only, a source change without tests, tests without a source change, two of each.
 * Returns the repository's path (`<dir>/tally`).
 */
export async function buildTally(dir: string): Promise<string> {
  const repo = join(dir, 'tally');
  await mkdir(repo, { recursive: true });
  const { git, commit } = historyWriter(repo, { name: 'Ines Varga', email: 'ines@example.com' });
  await git('2025-01-20T09:00:00Z', 'init', '-q', '-b', 'main');
  await commit('2025-01-20T09:00:00Z', 'Start tally', {
    'README.md': lines('# tally', '', 'Small arithmetic.'),
    'pyproject.toml': lines('[project]', 'name = "tally"', 'version = "0.1.0"'),
    'tally/__init__.py': lines('"""Small arithmetic."""'),
    'tally/identity.py': lines('def identity(a):', '    return a'),
    'tests/__init__.py': '',
    'tests/test_identity.py': lines(
      'from tally.identity import identity',
      '',
      '',
      'def test_identity():',
      '    assert identity(3) == 3',
    ),
  });
  const queue = [...features];
  for (const [index, kind] of tallyPlan.entries()) {
    const number = index + 1;
    const date = `2025-02-${String(number + 1).padStart(2, '0')}T10:00:00Z`;
    if (kind === 'feature') {
      const feature = queue.shift()!;
      await commit(date, `Add ${feature.name} (#${number})`, featureFiles(feature));
      continue;
    }
    const files: Record<string, string> = {
      'docs-only': { [`docs/notes-${number}.md`]: lines(`# Notes ${number}`, '', 'How to use tally.') },
      'config-only': { [`.github/workflows/ci-${number}.yml`]: lines('on: [push]', 'jobs: {}') },
      'no-test-change': {
        [`tally/helpers_${number}.py`]: lines(`def helper_${number}(a):`, `    return a + ${number}`),
      },
      'no-source-change': {
        [`tests/test_more_${number}.py`]: lines(
          'from tally.identity import identity',
          '',
          '',
          `def test_identity_${number}():`,
          `    assert identity(${number}) == ${number}`,
        ),
      },
      'no-fail-to-pass': {
        'tally/identity.py': lines('def identity(a):', '    """The value itself."""', '    return a'),
        'tests/test_identity_again.py': lines(
          'from tally.identity import identity',
          '',
          '',
          'def test_identity_of_zero():',
          '    assert identity(0) == 0',
        ),
      },
    }[kind]!;
    await commit(date, `${kind.replace(/-/g, ' ')} change (#${number})`, files);
  }
  return repo;
}

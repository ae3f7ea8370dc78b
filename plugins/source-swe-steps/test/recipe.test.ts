import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { mine } from '../src/index.js';
import { image, skipWithoutDocker } from './docker-ready.js';

const work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-recipe-'));

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/**
 * A repository whose one PR adds a feature tested with a helper module, a data file under
 * tests/ and a package (`units`) that only the environment recipe installs.
 */
async function buildRepo(): Promise<string> {
  const repo = join(work, 'shop');
  await mkdir(repo);
  const git = (...args: string[]) =>
    execa('git', args, {
      cwd: repo,
      env: {
        GIT_AUTHOR_DATE: '2025-02-01T10:00:00Z',
        GIT_COMMITTER_DATE: '2025-02-01T10:00:00Z',
        GIT_AUTHOR_NAME: 'a',
        GIT_AUTHOR_EMAIL: 'a@example.com',
        GIT_COMMITTER_NAME: 'a',
        GIT_COMMITTER_EMAIL: 'a@example.com',
      },
    });
  await git('init', '-q', '-b', 'main');
  await write(repo, {
    'shop/__init__.py': '',
    'shop/price.py': 'def price(n):\n    return n\n',
    'tests/__init__.py': '',
    'tests/test_price.py': 'from shop.price import price\n\ndef test_price():\n    assert price(2) == 2\n',
  });
  await git('add', '-A');
  await git('commit', '-q', '-m', 'Start');
  await write(repo, {
    'shop/price.py':
      'import units\n\ndef price(n):\n    return n\n\ndef total(n):\n    return units.scale(n)\n',
    'tests/helpers.py':
      'from pathlib import Path\n\ndef data(name):\n    return Path(__file__).parent.joinpath("files", name).read_text().strip()\n',
    'tests/files/amount.txt': '21\n',
    'tests/test_total.py':
      'from shop.price import total\nfrom tests.helpers import data\n\ndef test_total():\n    assert total(int(data("amount.txt"))) == 42\n',
  });
  await git('add', '-A');
  await git('commit', '-q', '-m', 'Add total (#1)');
  return repo;
}

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the repository’s environment (Docker)', () => {
  if (skipWithoutDocker()) return;

  it('without the recipe the drop says which import failed; with it the PR validates in the built image', async () => {
    const repo = await buildRepo();
    const base = { repo, since: '2025-01-01', until: '2025-03-31', image, reruns: 0, minChain: 1 };
    const bare = await mine({ ...base, out: join(work, 'bare') });
    const pr = bare.prs[0]!;
    expect(pr.excluded?.reason).toBe('no-fail-to-pass');
    expect(pr.dropped_tests).toEqual([
      { id: 'tests/test_total.py', reason: "import-error: No module named 'units'" },
    ]);
    // Support files are split from the modules pytest runs.
    expect(pr.test_modules).toEqual(['tests/test_total.py']);
    expect(pr.support_files).toEqual(['tests/files/amount.txt', 'tests/helpers.py']);

    const recipe = join(work, 'recipe');
    await write(recipe, {
      'deps/units/__init__.py': 'def scale(n):\n    return 2 * n\n',
      Dockerfile: [
        'ARG LONGHAUL_BASE',
        'FROM $LONGHAUL_BASE',
        'COPY deps /opt/deps',
        `RUN python3 -c "import os, site; d = site.getsitepackages()[0]; os.makedirs(d, exist_ok=True); open(os.path.join(d, 'deps.pth'), 'w').write('/opt/deps')"`,
        '',
      ].join('\n'),
    });
    const built = await mine({
      ...base,
      out: join(work, 'built'),
      recipe: { dockerfile: join(recipe, 'Dockerfile') },
    });
    expect(built.prs[0]!.status).toBe('validated');
    expect(built.prs[0]!.fail_to_pass).toEqual(['tests/test_total.py::test_total']);
    expect(built.environment.image).toMatch(/^longhaul\/swe-steps-shop:[0-9a-f]{12}$/);
    expect(built.environment.recipeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(built.environment.imageId).toMatch(/^sha256:/);
    expect(built.environment.runtime?.executable).toMatch(/python/);
    // The build had no network: a recipe that downloads fails with a hint.
    await write(recipe, {
      Dockerfile: 'ARG LONGHAUL_BASE\nFROM $LONGHAUL_BASE\nRUN getent hosts deb.debian.org\n',
    });
    await expect(
      mine({ ...base, out: join(work, 'offline'), recipe: { dockerfile: join(recipe, 'Dockerfile') } }),
    ).rejects.toThrow(/--build-network/);
  }, 600_000);
});

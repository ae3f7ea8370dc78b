import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ensureBuilt } from '@longhaul/testkit/build';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import plugin, { bundleFile, datasetFormat, type Suite, SweStepsSource } from '../src/index.js';

const work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-restore-'));
afterAll(() => rm(work, { recursive: true, force: true }));

const repo = join(work, 'repo');
const git = async (...args: string[]) =>
  String(
    (
      await execa('git', args, {
        cwd: repo,
        env: {
          GIT_AUTHOR_NAME: 'a',
          GIT_AUTHOR_EMAIL: 'a@example.com',
          GIT_COMMITTER_NAME: 'a',
          GIT_COMMITTER_EMAIL: 'a@example.com',
        },
      })
    ).stdout,
  ).trim();

/** Writes (or, for null, removes) files and commits them; returns the commit id. */
async function commit(message: string, files: Record<string, string | null>): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    if (text === null) await rm(join(repo, path));
    else {
      await mkdir(dirname(join(repo, path)), { recursive: true });
      await writeFile(join(repo, path), text);
    }
  }
  await git('add', '-A');
  await git('commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD');
}

function record(pr: number, commit: string, parent: string, modules: string[], support: string[] = []) {
  return {
    commit_id: commit,
    parent_id: parent,
    pr_number: pr,
    prs: { number: pr, title: `PR ${pr}`, body: '', style: 'squash', issues: [] },
    merged_at: '2025-01-01T00:00:00Z',
    changed_files: [],
    test_files: [...modules, ...support],
    test_modules: modules,
    support_files: support,
    changes: { added: [], modified: [], deleted: [] },
    pass_to_pass: [],
    fail_to_pass: [`${modules[0]}::test_x`],
    fix_patch: '',
    test_patch: '',
    all_texts: { title: '', body: '', issues: [], docs: '' },
    status: 'validated',
    dropped_tests: [],
  };
}

/**
 * A history like a real repository's: PR #1's test imports a helper module and reads a data file
 * that no PR hides; a direct commit after it replaces the helper with a conftest.py and rewrites
 * the data file; PR #2 and PR #3 follow (a chain folding that commit in).
 */
async function dataset(): Promise<string> {
  await mkdir(repo);
  await git('init', '-q', '-b', 'main');
  const base = await commit('Start', {
    'lib/__init__.py': '',
    'tests/__init__.py': '',
    'tests/utils.py': 'def load(name):\n    return open(name).read()\n',
    'tests/files/one.sql': 'select 1;\n',
    'tests/files/same.sql': 'select 0;\n',
  });
  const one = await commit('One (#1)', {
    'lib/one.py': 'X = 1\n',
    'tests/test_one.py': 'from tests.utils import load\n',
  });
  const direct = await commit('Replace tests/utils with conftest.py', {
    'tests/utils.py': null,
    'tests/conftest.py': 'import pytest\n',
    'tests/files/one.sql': 'select 1 from t;\n',
    'tests/test_one.py': 'def test_x(load):\n    pass\n',
  });
  const two = await commit('Two (#2)', {
    'lib/two.py': 'X = 2\n',
    'tests/test_two.py': 'def test_x():\n    pass\n',
    'tests/files/two.sql': 'select 2;\n',
  });
  const three = await commit('Three (#3)', { 'lib/three.py': 'X = 3\n', 'tests/test_three.py': '' });
  const out = join(work, 'dataset');
  await mkdir(out);
  await git('bundle', 'create', '-q', join(out, bundleFile), 'main');
  const manifest = {
    format: datasetFormat,
    repository: { name: 'repo', source: repo, branch: 'main', head: three },
    window: { since: '2025-01-01', until: '2025-02-01' },
    options: {},
    environment: { setup: [], toolchains: ['python'] },
    tests: { command: ['python3', '-m', 'pytest'], timeoutSeconds: 60 },
    stats: {
      commits: 5,
      prsSeen: 3,
      excluded: {},
      validated: 3,
      validatedNow: 3,
      fromCache: 0,
      testsDropped: 0,
      chains: 1,
      prsInChains: 3,
      wallSeconds: 0,
    },
    prs: [
      record(1, one, base, ['tests/test_one.py']),
      record(2, two, direct, ['tests/test_two.py'], ['tests/files/two.sql']),
      record(3, three, two, ['tests/test_three.py']),
    ],
    chains: [{ id: 'pr1-pr3', base, prs: [1, 2, 3] }],
  };
  await writeFile(join(out, 'dataset.json'), JSON.stringify(manifest, null, 2));
  return out;
}

let made: Promise<string> | undefined;
/** The dataset, made once for every test of the file. */
const datasetOnce = () => {
  made ??= dataset();
  return made;
};

describe.skipIf(!prerequisites.git())('source swe-steps: what each PR is scored with', () => {
  it('the helper and data a PR’s tests read are restored as its gold tree has them, even when a later commit removes or rewrites them', async () => {
    const out = await datasetOnce();
    const source = new SweStepsSource(plugin.options.parse({ path: out, cacheDir: join(work, 'cache') }));
    const [task] = await source.load({ baseDir: work });
    const suiteOf = async (index: number) => {
      const cases = task!.steps[index]!.cases!;
      const suite = JSON.parse(await readFile(join(cases, 'suite.json'), 'utf8')) as Suite;
      const file = (path: string) => readFile(join(cases, 'files', path), 'utf8');
      return { suite, file };
    };
    // PR #1 on the final state (PRD) or after the agent's own work: tests/utils.py is gone and
    // tests/files/one.sql rewritten there, so both come back as PR #1 left them. Files every
    // commit of the chain holds alike (same.sql, __init__.py) are the seed's and are not copied.
    const first = await suiteOf(0);
    expect(first.suite.restore).toEqual(['tests/files/one.sql', 'tests/utils.py']);
    expect(await first.file('tests/utils.py')).toContain('def load(name)');
    expect(await first.file('tests/files/one.sql')).toBe('select 1;\n');
    // PR #3: what PR #1 and PR #2 hide and what the folded commit added, as PR #3 leaves them;
    // never a later PR's file (PR #1's tree has no test_two.py, so PR #1 is not given it).
    const third = await suiteOf(2);
    expect(third.suite.restore).toEqual([
      'tests/conftest.py',
      'tests/files/one.sql',
      'tests/files/two.sql',
      'tests/test_one.py',
      'tests/test_two.py',
    ]);
    expect(await third.file('tests/files/one.sql')).toBe('select 1 from t;\n');
    expect(first.suite.restore).not.toContain('tests/test_two.py');
    // PR #1's module is rewritten by the folded commit: on the final state (PRD) its version of
    // those tests cannot stand. PR #2's and PR #3's are not touched after them.
    expect(first.suite.changedLater).toEqual(['tests/test_one.py']);
    expect((await suiteOf(1)).suite.changedLater).toEqual([]);
    expect(third.suite.changedLater).toEqual([]);
  });
});

describe.skipIf(!prerequisites.git())(
  'source swe-steps: a dataset validated in an image, run with environment: local',
  () => {
    const root = resolve(import.meta.dirname, '../../..');
    const image = 'longhaul/swe-steps-repo:0123456789ab';

    /** The dataset as mining in an image records it: the image, its id, its recipe, its runtime. */
    async function inImage(): Promise<string> {
      const out = join(work, 'dataset-image');
      await cp(await datasetOnce(), out, { recursive: true });
      const file = join(out, 'dataset.json');
      const manifest = JSON.parse(await readFile(file, 'utf8'));
      manifest.environment = {
        ...manifest.environment,
        image,
        imageId: 'sha256:0123',
        recipeHash: 'abc',
        runtime: { python: '3.11.9', pytest: '8.3.2', executable: '/usr/local/bin/python3' },
      };
      await writeFile(file, JSON.stringify(manifest, null, 2));
      return out;
    }

    it('its tasks say which image and interpreter their tests were validated with', async () => {
      const out = await inImage();
      const source = new SweStepsSource(plugin.options.parse({ path: out, cacheDir: join(work, 'cache') }));
      const [task] = await source.load({ baseDir: work });
      expect(task!.environment).toMatchObject({
        image,
        validatedIn: `dataset ${out} was validated in image ${image} (Python 3.11.9, pytest 8.3.2)`,
      });
    });

    it('`longhaul validate` warns before anything starts that the host’s interpreter runs its tests', async () => {
      await ensureBuilt(
        [
          'core/cli',
          'harnesses/oracle',
          'plugins/environment-local',
          'plugins/scripts',
          'plugins/scorer-swe-steps',
          'plugins/source-swe-steps',
        ],
        root,
      );
      const out = await inImage();
      const experiment = join(work, 'local.yaml');
      await writeFile(
        experiment,
        [
          'name: swe-steps-local',
          `source: { id: swe-steps, options: { path: ${JSON.stringify(out)}, cacheDir: ${JSON.stringify(join(work, 'cache'))} } }`,
          'harness: oracle',
          'environment: local',
          'script: isolated',
          'memory: none',
          'scorers: [swe-steps]',
          '',
        ].join('\n'),
      );
      const validate = (...set: string[]) =>
        execa('node', [join(root, 'core/cli/bin/longhaul.js'), 'validate', experiment, ...set], {
          cwd: root,
          reject: false,
        });
      const local = await validate();
      expect(local.exitCode).toBe(0);
      // Beside it, the local environment's warnings about isolation (plain mode).
      expect(local.stderr.split('\n').filter((line) => line.includes('swe-steps'))).toEqual([
        `warning: source swe-steps: dataset ${out} was validated in image ${image} (Python 3.11.9, pytest 8.3.2); environment local runs its tests with the host's interpreter and packages instead — use environment: docker for the same interpreter and packages`,
      ]);
      // Then what the local environment guarantees on this host.
      expect(local.stdout.split('\n')[0]).toBe(`${experiment}: valid: 1 task, 1 condition, 1 trial`);
    }, 600_000);
  },
);

import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatIssue, type PytestSuite, type Task } from '@longhaul/core';
import { afterEach, describe, expect, it } from 'vitest';
import plugin, { ScbenchSource } from '../src/index.js';

const problems = join(import.meta.dirname, 'fixtures/problems');
const fidelity = join(import.meta.dirname, 'fixtures/fidelity');
const temps: string[] = [];

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function load(path: string, options: Record<string, unknown> = {}): Promise<Task[]> {
  return new ScbenchSource(plugin.options.parse({ path, ...options })).load({ baseDir: '/' });
}

/** A copy of a fixture problem that a test may break. */
async function copyOf(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-scbench-'));
  temps.push(dir);
  await cp(join(problems, name), join(dir, name), { recursive: true });
  return join(dir, name);
}

async function issues(path: string): Promise<string[]> {
  const error = await load(path).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map(formatIssue);
}

describe('source scbench', () => {
  it('loads every problem directory with its checkpoints in order and placeholders substituted', async () => {
    const tasks = await load(problems);
    expect(tasks.map((task) => task.id)).toEqual(['tinykv', 'wordfreq']);
    const wordfreq = tasks[1]!;
    expect(wordfreq).toMatchObject({
      source: 'scbench',
      entrypoint: 'python3 wordfreq.py',
      language: 'python',
      timeouts: { caseMs: 10_000 },
    });
    expect(wordfreq.steps.map((step) => step.id)).toEqual(['checkpoint_1', 'checkpoint_2']);
    expect(wordfreq.steps[0]!.prompt).toContain('    python3 wordfreq.py <file>');
    expect(wordfreq.steps[0]!.prompt).toContain('The program lives in `wordfreq.py`.');
    expect(wordfreq.steps[0]!.prompt).not.toContain('%%%');
    const suite = wordfreq.metadata.pytest as PytestSuite;
    expect(suite).toMatchObject({
      testsDir: join(problems, 'wordfreq/tests'),
      python: '/usr/bin/python3',
      entrypoint: 'python3 wordfreq.py',
      staticAssets: { stopwords: 'stopwords' },
      checkpoints: [
        { name: 'checkpoint_1', file: 'test_checkpoint_1.py', includePrior: true, testTimeoutSeconds: 10 },
        { name: 'checkpoint_2', file: 'test_checkpoint_2.py', includePrior: true, testTimeoutSeconds: 10 },
      ],
    });
    expect(wordfreq.environment.assets).toEqual(['stopwords']);
    expect(tasks[0]!.environment.assets).toBeUndefined();
    expect((tasks[0]!.metadata.pytest as PytestSuite).markers).toEqual({ slow: 'functionality' });
  });

  it('leaves the canary comment out of every spec, as upstream does', async () => {
    const [glossary, shout] = await load(fidelity);
    for (const step of [...glossary!.steps, ...shout!.steps]) {
      expect(step.prompt).not.toContain('BENCHMARK DATA');
      expect(step.prompt).not.toContain('canary');
      expect(step.prompt).not.toMatch(/^\s/);
    }
    expect(shout!.steps[0]!.prompt).toMatch(/^Write a command-line tool that prints its words back\./);
    expect(glossary!.steps[1]!.prompt).toBe(
      'Add `--list`: print every word of the glossary, one a line, in alphabetical order.\n',
    );
  });

  it("passes the config's timeout per test, a checkpoint's own timeout first", async () => {
    const root = join(await copyOf('wordfreq'), 'config.yaml');
    await writeFile(
      root,
      (await readFile(root, 'utf8')).replace(
        '    include_prior_tests: true',
        '    include_prior_tests: true\n    timeout: 45',
      ),
    );
    const [task] = await load(join(root, '..'));
    expect((task!.metadata.pytest as PytestSuite).checkpoints.map((item) => item.testTimeoutSeconds)).toEqual(
      [10, 45],
    );
  });

  it('limits a whole pytest run to suiteTimeoutSeconds, 30 minutes unless set', async () => {
    const [byDefault] = await load(join(problems, 'wordfreq'));
    expect((byDefault!.metadata.pytest as PytestSuite).timeoutMs).toBe(1_800_000);
    const [set] = await load(join(problems, 'wordfreq'), { suiteTimeoutSeconds: 7200 });
    expect((set!.metadata.pytest as PytestSuite).timeoutMs).toBe(7_200_000);
  });

  it('puts static assets in the seed and in every reference workspace, never tests or solutions', async () => {
    const [, wordfreq] = await load(problems);
    expect(await readdir(wordfreq!.seed!)).toEqual(['stopwords']);
    expect((await readdir(wordfreq!.steps[1]!.solution!)).sort()).toEqual(['stopwords', 'wordfreq.py']);
    expect(await readFile(join(wordfreq!.steps[1]!.solution!, 'wordfreq.py'), 'utf8')).toBe(
      await readFile(join(problems, 'wordfreq/solutions/checkpoint_2/wordfreq.py'), 'utf8'),
    );
    // Without assets the solution directories are used as they are.
    const [tinykv] = await load(problems, { problems: ['tiny*'] });
    expect(tinykv!.seed).toBeUndefined();
    expect(tinykv!.steps[0]!.solution).toBe(join(problems, 'tinykv/solutions/checkpoint_1'));
  });

  it('takes one problem directory, and a custom entry command', async () => {
    const [task] = await load(join(problems, 'tinykv'), { entryCommand: 'uv run {entry_file}' });
    expect(task!.entrypoint).toBe('uv run kv_server.py');
    expect(task!.steps[0]!.prompt).toContain('`uv run kv_server.py --port <port>`');
  });

  it('orders checkpoints by their order, not by name', async () => {
    const root = await copyOf('tinykv');
    const config = await readFile(join(root, 'config.yaml'), 'utf8');
    await writeFile(join(root, 'config.yaml'), config.replace('order: 1', 'order: 3'));
    const [task] = await load(root);
    expect(task!.steps.map((step) => step.id)).toEqual(['checkpoint_2', 'checkpoint_1']);
  });

  it('reports every problem of a broken problem with file, line and key', async () => {
    const root = await copyOf('wordfreq');
    await rm(join(root, 'checkpoint_2.md'));
    await rm(join(root, 'tests/test_checkpoint_1.py'));
    const spec = await readFile(join(root, 'checkpoint_1.md'), 'utf8');
    await writeFile(
      join(root, 'checkpoint_1.md'),
      spec.replace('The program', 'See %%%STATIC:sde_dir%%%. The program'),
    );
    const found = await issues(root);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/checkpoint_2\.md: missing checkpoint_2\.md/),
        expect.stringMatching(/test_checkpoint_1\.py: missing tests\/test_checkpoint_1\.py/),
        expect.stringMatching(/checkpoint_1\.md:11:5: unknown placeholder '%%%STATIC:sde_dir%%%'/),
      ]),
    );
  });

  it('names everything a problem lacks to run, each with its path', async () => {
    const root = await copyOf('wordfreq');
    await rm(join(root, 'checkpoint_2.md'));
    await rm(join(root, 'tests/test_checkpoint_2.py'));
    await rm(join(root, 'tests/conftest.py'));
    await rm(join(root, 'stopwords'), { recursive: true });
    await writeFile(
      join(root, 'tests/test_checkpoint_1.py'),
      `from pathlib import Path\nGOLDEN = Path(__file__).parent / "data" / "golden.txt"\n${await readFile(join(root, 'tests/test_checkpoint_1.py'), 'utf8')}`,
    );
    expect(await issues(root)).toEqual([
      expect.stringMatching(
        /config\.yaml:\d+:\d+: static_assets\.stopwords\.path: no such file or directory: stopwords/,
      ),
      `${root}/tests/conftest.py: missing tests/conftest.py (it declares --entrypoint and --checkpoint)`,
      `${root}/tests/test_checkpoint_1.py:2:1: the tests read ${root}/tests/data/golden.txt, which is not there (a data file missing from the problem)`,
      `${root}/checkpoint_2.md: missing checkpoint_2.md (the spec of checkpoint checkpoint_2)`,
      `${root}/tests/test_checkpoint_2.py: missing tests/test_checkpoint_2.py (the tests of checkpoint checkpoint_2)`,
    ]);
  });

  it('checks config.yaml against the format', async () => {
    const root = await copyOf('wordfreq');
    const config = await readFile(join(root, 'config.yaml'), 'utf8');
    await writeFile(
      join(root, 'config.yaml'),
      config.replace('entry_file: wordfreq', 'entry_file: 7').replace('path: stopwords', 'path: nowhere'),
    );
    expect(await issues(root)).toEqual([expect.stringMatching(/config\.yaml:\d+:\d+.*entry_file/)]);
    await writeFile(join(root, 'config.yaml'), config.replace('path: stopwords', 'path: ../outside'));
    expect(await issues(root)).toEqual([
      expect.stringMatching(/config\.yaml:\d+:\d+.*static_assets\.stopwords\.path.*inside the problem/),
    ]);
  });

  it('names the problems there are when a filter matches none', async () => {
    const found = await load(problems, { problems: ['wordfrek'] }).catch((error: ConfigError) =>
      error.issues.map(formatIssue),
    );
    expect(String(found)).toMatch(
      /no problem matches 'wordfrek' \(problems here: tinykv, wordfreq\).*wordfreq/,
    );
  });
});

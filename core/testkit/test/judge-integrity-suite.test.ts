import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Sandbox, Scorer, SnapshotStore, StepScoreContext, Task } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import {
  FakeSnapshotStore,
  type JudgeIntegrityContext,
  type JudgeTarget,
  judgeHacks,
  judgeIntegrityChecks,
  Semaphore,
  stepJudge,
} from '../src/index.js';
import { prerequisites } from '../src/prerequisites.js';
import { failedChecks } from './support/failures.js';
import { HostEnvironment } from './support/host-environment.js';

// The red-team suite's teeth: judges with the faults it is about fall to the hacks aimed at those
// faults, and a judge that keeps its world its own holds against every one of them but the
// in-process hacks that only guarded comparisons hold (objects equal to anything: this judge
// runs the tests as they are).
type StepScorer = Extract<Scorer, { scope: 'step' }>;

const reference = {
  'calc.py': 'def add(a, b):\n    return a + b\n',
  'helpers.py': 'def check(actual, expected):\n    assert actual == expected\n',
};
const hiddenTest = [
  'from calc import add',
  'from helpers import check',
  '',
  '',
  'def test_add():',
  '    check(add(2, 3), 5)',
  '',
  '',
  'def test_add_negative():',
  '    check(add(-2, -3), -5)',
  '',
].join('\n');

const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');
const passes = (junit: string) =>
  (junit.match(/<testcase\b/g) ?? []).length - (junit.match(/<(failure|error|skipped)\b/g) ?? []).length;

/** Runs the hidden tests in the agent's workspace, with the workspace's bin/ on PATH and as a site dir. */
async function naiveRun(sandbox: Sandbox) {
  await sandbox.writeFile('.judge/tests/test_calc.py', hiddenTest);
  const runner = "import site, sys; site.addsitedir('.'); import pytest; sys.exit(pytest.main(sys.argv[1:]))";
  return sandbox.exec(
    ['sh', '-c', `python3 -c "${runner}" .judge/tests -p no:cacheprovider --junitxml=.judge/junit.xml`],
    { env: { PATH: `${sandbox.workspace}/bin:/usr/bin:/bin`, PYTHONPATH: '.judge' }, timeoutMs: 60_000 },
  );
}

const scorer = (score: (sandbox: Sandbox, ctx: StepScoreContext) => Promise<boolean>): StepScorer => ({
  scope: 'step',
  version: '1',
  async score(ctx) {
    const sandbox = await ctx.openSandbox(ctx.snapshot);
    try {
      return [{ metric: 'strict', value: (await score(sandbox, ctx)) ? 1 : 0 }];
    } finally {
      await sandbox.close();
    }
  },
});

/** Trusts pytest's exit status (nothing failed: 0, or 5 when nothing ran). */
const trustsExitStatus = scorer(async (sandbox) => [0, 5].includes((await naiveRun(sandbox)).exitCode ?? -1));

/** Counts the passes of a JUnit file it reads back from the workspace. */
const countsJunitPasses = scorer(async (sandbox) => {
  await naiveRun(sandbox);
  const junit = await sandbox.readFile('.judge/junit.xml').then(text, () => '');
  return passes(junit) >= 2;
});

/**
 * Copies the program file alone into a folder of its own with the hidden tests and a canary that
 * must fail, runs pytest there in isolated mode with no configuration, and reads its own results.
 */
const ownWorld = scorer(async (sandbox) => {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-own-world-'));
  try {
    await writeFile(join(dir, 'calc.py'), await sandbox.readFile('calc.py'));
    await writeFile(join(dir, 'helpers.py'), reference['helpers.py']);
    await writeFile(join(dir, 'test_calc.py'), hiddenTest);
    await writeFile(join(dir, 'test_canary.py'), 'def test_canary():\n    assert False\n');
    const junitFile = join(dir, 'results', 'junit.xml');
    await mkdir(join(dir, 'results'));
    await promisify(execFile)(
      '/usr/bin/python3',
      ['-I', '-m', 'pytest', '-c', '/dev/null', `--rootdir=${dir}`, '-p', 'no:cacheprovider'].concat([
        `--junitxml=${junitFile}`,
        'test_calc.py',
        'test_canary.py',
      ]),
      { cwd: dir, timeout: 60_000, env: { PATH: '/usr/bin:/bin' } },
    ).catch(() => undefined);
    const junit = await readFile(junitFile, 'utf8').catch(() => '');
    const canaryFailed = /<testcase[^>]*name="test_canary"[^>]*>\s*<failure/.test(junit);
    return canaryFailed && passes(junit) === 2;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A CLI judge that writes its inputs over whatever is there and reads the output file the case expects. */
const naiveCli = scorer(async (sandbox) => {
  await sandbox.writeFile('in.txt', '2 3\n');
  await sandbox.exec(['python3', 'calc.py', 'in.txt', 'out.txt'], { timeoutMs: 60_000 });
  return (await sandbox.readFile('out.txt').then(text, () => '')) === '5\n';
});

const task: Task = {
  id: 'calc',
  title: 'calc',
  source: 'test',
  root: tmpdir(),
  entrypoint: 'python3 calc.py',
  language: 'python',
  environment: {},
  steps: [{ id: 'add', index: 0, prompt: '', metadata: {} }],
  timeouts: { caseMs: 60_000 },
  hash: 'calc',
  metadata: {},
};

const referenceDir = await mkdtemp(join(tmpdir(), 'longhaul-judge-reference-'));
await writeFile(join(referenceDir, 'calc.py'), reference['calc.py']);

const pytestTarget: JudgeTarget = {
  runner: 'pytest',
  program: ['calc.py'],
  reference: { 'calc.py': join(referenceDir, 'calc.py') },
  importDirs: ['.', '.judge'],
  judgeDirs: ['.judge', '.judge/tests'],
  hiddenTests: ['.judge/tests/test_calc.py'],
  visibleTests: ['helpers.py'],
  testIds: ['.judge/tests/test_calc.py::test_add', '.judge/tests/test_calc.py::test_add_negative'],
};

function context(
  target: JudgeTarget,
  judge: StepScorer,
  wrong: Record<string, string>,
): JudgeIntegrityContext {
  const snapshots: SnapshotStore = new FakeSnapshotStore();
  return {
    target,
    fixture: {
      reference,
      wrong,
      score: stepJudge({ scorer: judge, label: 'judge', task, metric: 'strict' }),
    },
    environment: new HostEnvironment(undefined, false, snapshots as FakeSnapshotStore),
    snapshots,
    runId: `teeth-${process.pid}`,
    slots: new Semaphore(2),
  };
}

const wrongAdd = { 'calc.py': 'def add(a, b):\n    return a - b\n' };

/** The hacks (or other checks, by name) a judge falls to; checks run at once, two scorings at a time. */
async function fallsTo(
  target: JudgeTarget,
  judge: StepScorer,
  wrong: Record<string, string>,
  { isolated = true, hacks = judgeHacks } = {},
): Promise<string[]> {
  const shared = context(target, judge, wrong);
  const checks = judgeIntegrityChecks(target, isolated, hacks);
  const failed = await Promise.all(
    checks.map((check) =>
      check.run(shared).then(
        () => [],
        () => [check.name],
      ),
    ),
  );
  return failed.flat().map((name) => /^holds against ([\w-]+):/.exec(name)?.[1] ?? name);
}

describe.skipIf(!prerequisites.pytest())('the judge integrity suite', () => {
  it('has at least 15 hacks, each with a stable id, a description and the judges it aims at', () => {
    expect(judgeHacks.length).toBeGreaterThanOrEqual(15);
    expect(new Set(judgeHacks.map((hack) => hack.id)).size).toBe(judgeHacks.length);
    for (const hack of judgeHacks) {
      expect(hack.id).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(hack.description.length).toBeGreaterThan(20);
      expect(hack.runners.length).toBeGreaterThan(0);
    }
  });

  it('passes a judge that keeps its world its own, but for the objects equal to anything', async () => {
    // Its host folder keeps the program from nothing: hacks that read the host's files are not tried.
    expect(await fallsTo(pytestTarget, ownWorld, wrongAdd, { isolated: false })).toEqual([
      'always-equal',
      'mock-any',
    ]);
  });

  it('fails a judge that trusts the exit status of a run in the agent’s workspace, hack by hack', async () => {
    expect((await fallsTo(pytestTarget, trustsExitStatus, wrongAdd)).sort()).toEqual(
      [
        'always-equal',
        'conftest-collect-nothing',
        'conftest-pass-all',
        'edit-visible-tests',
        'exit-at-import',
        'exit-zero-at-exit',
        'fake-programs-on-path',
        'fake-pytest-module',
        'forged-results',
        'mock-any',
        'patch-runner-at-import',
        'pth-file',
        'pyproject-toml',
        'pytest-ini',
        'read-hidden',
        'setup-cfg',
        'sitecustomize',
        'tox-ini',
        'usercustomize',
      ].sort(),
    );
  });

  it('fails a judge that counts the passes of results read back from the workspace', async () => {
    const aimed = judgeHacks.filter((hack) => ['forged-results', 'own-tests'].includes(hack.id));
    expect(await fallsTo(pytestTarget, countsJunitPasses, wrongAdd, { hacks: aimed })).toEqual([
      'own-tests',
      'forged-results',
    ]);
  });

  it('fails a CLI judge that trusts the output files it finds and writes inputs over whatever is there', async () => {
    const target: JudgeTarget = {
      runner: 'cli',
      program: ['calc.py'],
      expectedOutputs: { 'out.txt': '5\n' },
      inputFiles: ['in.txt'],
    };
    const cli = {
      'calc.py':
        'import sys\n\na, b = open(sys.argv[1]).read().split()\nopen(sys.argv[2], "w").write(f"{int(a) + int(b)}\\n")\n',
    };
    const snapshots = new FakeSnapshotStore();
    const cliContext: JudgeIntegrityContext = {
      ...context(target, naiveCli, {}),
      fixture: {
        reference: cli,
        wrong: { 'calc.py': 'import sys\n' },
        score: stepJudge({ scorer: naiveCli, label: 'judge', task, metric: 'strict' }),
      },
      environment: new HostEnvironment(undefined, false, snapshots),
      snapshots,
    };
    const failed = await failedChecks(judgeIntegrityChecks(target, false), cliContext);
    expect(failed.map((name) => /^holds against ([\w-]+):/.exec(name)?.[1])).toEqual([
      'expected-outputs',
      'replaced-inputs',
    ]);
  });
});

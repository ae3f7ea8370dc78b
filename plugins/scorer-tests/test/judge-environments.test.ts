import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt } from '@longhaul/testkit/build';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 43's three ways to fake a pass, end to end through the real CLI in every environment
// that ships: the oracle harness writes each problem's "reference solution" into the agent's
// workspace, here a program that prints "hello" whatever it is asked plus the hack's files, and
// the tests scorer runs the hidden suite in its own sandbox of that environment. Each must score
// 0; the true reference 1.
const run = promisify(execFile);
const repoRoot = resolve(import.meta.dirname, '../../..');
const bin = join(repoRoot, 'core/cli/bin/longhaul.js');
const tally = join(import.meta.dirname, 'fixtures/pytest/tally');
const hacks = ['hack-root-conftest', 'hack-suite-folder', 'hack-sitecustomize'];
// The reference, but reading the hidden test code beside the data a test hands it, when it can.
const peek = 'peek';

let work: string;
let problems: string;

/** A SlopCodeBench-format problem of the tally suite whose reference solution is `solution`. */
async function problem(name: string, solution: string): Promise<void> {
  const dir = join(problems, name);
  await mkdir(dir, { recursive: true });
  await cp(join(tally, 'tests'), join(dir, 'tests'), { recursive: true });
  await cp(solution, join(dir, 'solutions/checkpoint_1'), { recursive: true });
  await writeFile(join(dir, 'checkpoint_1.md'), 'Print the words you are given, `shout` in capitals.\n');
  await writeFile(
    join(dir, 'config.yaml'),
    [
      'version: 1',
      `name: ${name}`,
      'entry_file: echo',
      'timeout: 30',
      'checkpoints:',
      '  checkpoint_1: { version: 1, order: 1, state: Core Tests }',
      '',
    ].join('\n'),
  );
}

beforeAll(async () => {
  await ensureBuilt(
    [
      'core/cli',
      'harnesses/oracle',
      'plugins/environment-local',
      'plugins/environment-docker',
      'plugins/scripts',
      'plugins/memory-basic',
      'plugins/scorer-tests',
      'plugins/source-scbench',
    ],
    repoRoot,
  );
  work = await mkdtemp(join(tmpdir(), 'longhaul-judge-envs-'));
  problems = join(work, 'problems');
  await problem('reference', join(tally, 'solutions/checkpoint_1'));
  for (const hack of [...hacks, peek]) await problem(hack, join(tally, 'submissions', hack));
}, 620_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs every problem in `environment` and gives tests.strict and core passed/total per problem. */
async function strictIn(name: string, environment: string): Promise<Record<string, string>> {
  const experiment = join(work, `${name}.yaml`);
  await writeFile(
    experiment,
    [
      `name: ${name}`,
      `source: { id: scbench, options: { path: ${problems} } }`,
      'harness: oracle',
      `environment: ${environment}`,
      'script: checkpoints',
      'scorers: [tests]',
      'concurrency: 2',
      '',
    ].join('\n'),
  );
  const runDir = join(work, name);
  await run('node', [bin, 'run', experiment, '--run-dir', runDir], {
    cwd: repoRoot,
    timeout: 900_000,
    maxBuffer: 16 << 20,
    // Debian's Python first, as CI has it.
    env: { ...process.env, PATH: `/usr/sbin:/usr/bin:/sbin:/bin:${process.env.PATH ?? ''}` },
  });
  const found: Record<string, string> = {};
  for (const task of ['reference', ...hacks, peek]) {
    const step = join(
      runDir,
      'trials',
      `${task}.oracle.checkpoints.none.r1`,
      'steps/01-checkpoint_1/scores.json',
    );
    const { scores } = JSON.parse(await readFile(step, 'utf8')) as { scores: Record<string, number> };
    found[task] =
      `strict ${scores['tests.strict']}, core ${scores['tests.core.passed']}/${scores['tests.core.total']}`;
  }
  return found;
}

const expected = {
  reference: 'strict 1, core 7/7',
  'hack-root-conftest': 'strict 0, core 1/7',
  'hack-suite-folder': 'strict 0, core 1/7',
  'hack-sitecustomize': 'strict 0, core 1/7',
};
// Where the judge area is guarded, the program reads the suite's data but not its code.
const guarded = { ...expected, peek: 'strict 1, core 7/7' };

describe.skipIf(!prerequisites.pytest())('the three hacks of issue 43, in every environment', () => {
  it('local, isolation none: the wrong program scores 0 with each hack, the reference 1', async () => {
    // Nothing is isolated: the program reads the test code and its answer goes wrong.
    expect(await strictIn('plain', 'local')).toEqual({ ...expected, peek: 'strict 0, core 6/7' });
  }, 900_000);

  it("local, isolation bubblewrap: the same, and the program reads the suite's data but not its code", async (context) => {
    if (!prerequisites.bubblewrap()) return context.skip();
    expect(await strictIn('bubblewrap', '{ id: local, options: { isolation: bubblewrap } }')).toEqual(
      guarded,
    );
  }, 900_000);

  it("docker: the same, and the program reads the suite's data but not its code", async (context) => {
    const image = execFileSync('node', [bin, 'images', 'ref'], { encoding: 'utf8' }).trim();
    if (!prerequisites.docker([image])) return context.skip();
    expect(await strictIn('docker', 'docker')).toEqual(guarded);
  }, 900_000);
});

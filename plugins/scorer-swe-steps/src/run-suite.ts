import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { ClassifiedError, type StepScoreContext } from '@longhaul/core';
import { guardComparisons } from '@longhaul/metrics';
import type { ActiveSuite } from './cascade.js';
import { goldMachinery, machineryEdits } from './gold-machinery.js';
import {
  canarySource,
  launcherModule,
  launcherSource,
  outcomesPluginModule,
  outcomesPluginSource,
} from './outcomes-plugin.js';
import { goldPytestConfig } from './pytest-config.js';

export type Outcome = 'passed' | 'xfailed' | 'failed' | 'error' | 'skipped' | 'missing';

export const passes = (outcome: Outcome) => outcome === 'passed' || outcome === 'xfailed';

/** Why no outcome of a run counts. */
export const tamperedNote =
  "The scorer's canary test, which must fail, was reported passed: something in the test process rewrote the results, so none of them counts.";

export interface SuiteRun {
  /** Outcome of every judged id. */
  outcomes: Record<string, Outcome>;
  exitCode: number | null;
  timedOut: boolean;
  /** pytest's output (stdout then stderr), for feedback and tests/<name>.log. */
  output: string;
  collectErrors: string[];
  /** The interpreter and pytest that ran the tests (absent when pytest never finished). */
  runtime?: Runtime;
  /** Set when the canary passed: every outcome is then `missing`. */
  tampered?: string;
}

export interface Runtime {
  python: string;
  pytest: string;
  executable: string;
}

/** What the pytest plugin writes (absent when pytest never reached the end of its session). */
interface RawOutcomes {
  tests: Record<string, Outcome>;
  collectErrors: string[];
  runtime?: Runtime;
}

export interface RunOptions {
  command: string[];
  extraArgs: string[];
  timeoutMs: number;
  /** Name of the raw outputs under the step's tests/ directory. */
  name: string;
  /** The dataset's test-file globs (suite.json's `testRules`). */
  testRules: readonly string[];
}

const isPython = (path: string) => path.endsWith('.py');

/** A test file as the judge runs it: Python with its comparisons guarded, anything else as it is. */
function guarded(path: string, data: Buffer): string | Buffer {
  if (!isPython(path)) return data;
  try {
    return guardComparisons(utf8.decode(data));
  } catch {
    return data; // not UTF-8: left as the repository has it
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The command with `python -m pytest` run through the launcher (see `launcherSource`). */
function launched(command: readonly string[], launcher: string): string[] | undefined {
  const at = command.findIndex((word, index) => word === '-m' && command[index + 1] === 'pytest');
  if (at < 1) return undefined;
  return [...command.slice(0, at), launcher, ...command.slice(at + 2)];
}

/**
 * Opens a sandbox over the step's snapshot and makes the machinery of judgment the gold tree's:
 * every test file (by the dataset's rules) and conftest.py as the PR's gold tree holds them, the
 * agent's others and its startup files (sitecustomize.py, usercustomize.py, *.pth) removed, then
 * the suite's gold test files (modules, support files, what other steps hid) written over them.
 * pytest reads the gold tree's configuration file only (`-c`), with pytest and the outcomes plugin
 * imported before the agent's tree is on sys.path, and writes each judged id's outcome to a file
 * of a folder whose name the agent cannot know. A canary test that must fail runs with the suite:
 * if it passes, the process was tampered with and no outcome counts. A run that crashes, times
 * out or collects nothing still scores: the ids it did not report are `missing`, which fails them.
 * Only a command that cannot start is a scorer fault.
 *
 * The test files' comparisons are guarded (`guardComparisons`): an object the agent's code made
 * equal to anything fails the test that compares it. What stays possible (the agent's code is
 * imported into the pytest process): code written to undo that guard, or to rewrite pytest's
 * results for the suite's tests alone.
 */
export async function runSuite(
  ctx: StepScoreContext,
  suite: ActiveSuite,
  options: RunOptions,
): Promise<SuiteRun> {
  const gold = ctx.step.solution;
  if (!gold)
    throw new ClassifiedError('scorer', `step ${ctx.step.id} has no gold tree (solution) to judge with`);
  const [machinery, agent, config] = await Promise.all([
    goldMachinery(gold, options.testRules),
    ctx.snapshots.get(ctx.snapshot),
    goldPytestConfig(gold, suite.modules),
  ]);
  const sandbox = await ctx.openSandbox(ctx.snapshot);
  try {
    const edits = machineryEdits(agent, machinery);
    for (const path of edits.remove) await sandbox.remove(path);
    // Every Python file of the machinery is written, guarded (see guardComparisons), even where
    // the agent's copy is the gold one.
    const writes = new Map(edits.write);
    for (const [path, data] of machinery.files) if (isPython(path)) writes.set(path, data);
    for (const [path, data] of writes) await sandbox.writeFile(path, guarded(path, data));
    for (const [path, owner] of suite.files) {
      const source = join(owner.filesDir, path);
      if (path.split('/').includes('..')) {
        throw new ClassifiedError('scorer', `PR ${owner.pr}: test file ${path} leaves the repository`);
      }
      const data = await readFile(source).catch(() => {
        throw new ClassifiedError('scorer', `PR ${owner.pr}: ${source} does not exist`);
      });
      await sandbox.writeFile(path, guarded(path, data));
    }
    if (config) await sandbox.writeFile(config, await readFile(join(gold, config)));
    // The plugin, the launcher and the outcomes go to a folder the agent cannot have made: its
    // name is drawn now. The tests import the agent's code into pytest's process, which must
    // write the outcomes: it runs as the agent, and the helpers are read before that code runs.
    const nonce = randomBytes(8).toString('hex');
    const helperDir = `.longhaul-swe-steps-${nonce}`;
    await sandbox.writeFile(`${helperDir}/${outcomesPluginModule}.py`, outcomesPluginSource);
    await sandbox.writeFile(`${helperDir}/${launcherModule}.py`, launcherSource);
    const helpers = posix.join(sandbox.workspace, helperDir);
    const canary = `test_longhaul_canary_${nonce}`;
    const canaryFile = posix.join(posix.dirname(suite.modules[0] ?? 'tests/x.py'), `${canary}.py`);
    const canaryId = `${canaryFile}::${canary}`;
    await sandbox.writeFile(canaryFile, canarySource(canary));
    const outcomesFile = posix.join(helpers, 'outcomes.json');
    const direct = launched(options.command, posix.join(helpers, `${launcherModule}.py`));
    const argv = [
      ...(direct ?? options.command),
      ...suite.modules,
      canaryFile,
      `--rootdir=${sandbox.workspace}`,
      ...(config
        ? ['-c', join(sandbox.workspace, config)]
        : ['-c', '/dev/null', `--confcutdir=${sandbox.workspace}`]),
      ...(direct ? [] : ['-p', outcomesPluginModule]),
      '-p',
      'no:cacheprovider',
      '--continue-on-collection-errors',
      ...options.extraArgs,
    ];
    const result = await sandbox.exec(argv, {
      env: {
        PYTHONPATH: helpers,
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONNOUSERSITE: '1',
        LONGHAUL_OUTCOMES: outcomesFile,
      },
      timeoutMs: options.timeoutMs,
      signal: ctx.signal,
      maxOutputBytes: 4 * 1_048_576,
    });
    const output = `${result.stdout}\n${result.stderr}`.trim();
    await mkdir(ctx.outDir, { recursive: true });
    await writeFile(join(ctx.outDir, `${options.name}.log`), `$ ${argv.join(' ')}\n\n${output}\n`);
    if (result.exitCode === 127 || (result.exitCode === null && !result.timedOut)) {
      throw new ClassifiedError(
        'scorer',
        `the test command ${JSON.stringify(options.command)} could not run (exit ${result.exitCode}): ${output.slice(-300)}`,
      );
    }
    const raw: RawOutcomes = await sandbox
      .readFile(`${helperDir}/outcomes.json`)
      .then((data) => JSON.parse(Buffer.from(data).toString('utf8')) as RawOutcomes)
      .catch(() => ({ tests: {}, collectErrors: [] }));
    await writeFile(join(ctx.outDir, `${options.name}.json`), `${JSON.stringify(raw, null, 2)}\n`);
    const { [canaryId]: canaryOutcome, ...tests } = raw.tests;
    const tampered = canaryOutcome === 'passed';
    const outcomes: Record<string, Outcome> = {};
    for (const id of [...suite.ids.keys()].sort())
      outcomes[id] = tampered ? 'missing' : (tests[id] ?? 'missing');
    return {
      outcomes,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      output: tampered ? `${tamperedNote}\n\n${output}` : output,
      collectErrors: raw.collectErrors.filter((id) => id !== canaryFile),
      ...(tampered ? { tampered: tamperedNote } : {}),
      ...(raw.runtime ? { runtime: raw.runtime } : {}),
    };
  } finally {
    await sandbox.close();
  }
}

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassifiedError, type StepScoreContext } from '@longhaul/core';
import type { ActiveSuite } from './cascade.js';
import { outcomesPluginModule, outcomesPluginSource } from './outcomes-plugin.js';

export type Outcome = 'passed' | 'xfailed' | 'failed' | 'error' | 'skipped' | 'missing';

export const passes = (outcome: Outcome) => outcome === 'passed' || outcome === 'xfailed';

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

/** Where the scorer's helpers go in its own sandbox (never the agent's). */
const helperDir = '.longhaul-swe-steps';

export interface RunOptions {
  command: string[];
  extraArgs: string[];
  timeoutMs: number;
  /** Name of the raw outputs under the step's tests/ directory. */
  name: string;
}

/**
 * Opens a sandbox over the step's snapshot, writes the suite's gold test files (modules, support
 * files, what other steps hid) over whatever the workspace holds at those paths, runs the command
 * with the test modules as arguments and reads
 * each judged id's outcome. A run that crashes, times out or collects nothing still scores: the
 * ids it did not report are `missing`, which fails them. Only a command that cannot start is a
 * scorer fault.
 */
export async function runSuite(
  ctx: StepScoreContext,
  suite: ActiveSuite,
  options: RunOptions,
): Promise<SuiteRun> {
  const sandbox = await ctx.openSandbox(ctx.snapshot);
  try {
    for (const [path, owner] of suite.files) {
      const source = join(owner.filesDir, path);
      if (path.split('/').includes('..')) {
        throw new ClassifiedError('scorer', `PR ${owner.pr}: test file ${path} leaves the repository`);
      }
      const data = await readFile(source).catch(() => {
        throw new ClassifiedError('scorer', `PR ${owner.pr}: ${source} does not exist`);
      });
      await sandbox.writeFile(path, data);
    }
    await sandbox.writeFile(`${helperDir}/${outcomesPluginModule}.py`, outcomesPluginSource);
    const outcomesFile = join(sandbox.workspace, helperDir, 'outcomes.json');
    const argv = [
      ...options.command,
      ...suite.modules,
      `--rootdir=${sandbox.workspace}`,
      '-p',
      outcomesPluginModule,
      '-p',
      'no:cacheprovider',
      '--continue-on-collection-errors',
      ...options.extraArgs,
    ];
    const result = await sandbox.exec(argv, {
      env: {
        PYTHONPATH: join(sandbox.workspace, helperDir),
        PYTHONDONTWRITEBYTECODE: '1',
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
    const outcomes: Record<string, Outcome> = {};
    for (const id of [...suite.ids.keys()].sort()) outcomes[id] = raw.tests[id] ?? 'missing';
    return {
      outcomes,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      output,
      collectErrors: raw.collectErrors,
      ...(raw.runtime ? { runtime: raw.runtime } : {}),
    };
  } finally {
    await sandbox.close();
  }
}

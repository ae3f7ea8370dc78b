import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  ClassifiedError,
  type PytestSuite,
  readDirectoryFiles,
  type Sandbox,
  type StepScoreContext,
} from '@longhaul/core';
import type { CaseResult } from '../tally.js';
import { categorize } from './categorize.js';
import type { JunitTest } from './junit.js';
import { markersPluginModule, markersPluginSource } from './markers-plugin.js';

/** Where the suite goes in the scorer's sandbox: inside its own copy of the workspace, never the agent's. */
const suiteDir = '.longhaul-pytest';

function tail(text: string, lines = 15): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

async function installSuite(sandbox: Sandbox, suite: PytestSuite): Promise<void> {
  for (const file of await readDirectoryFiles(suite.testsDir)) {
    if (file.path.split('/').some((part) => part === '__pycache__' || part === '.pytest_cache')) continue;
    await sandbox.writeFile(`${suiteDir}/tests/${file.path}`, file.data, { mode: file.mode });
  }
  // Static assets go where SlopCodeBench's runner puts them for the tests: tests/assets/<name>.
  const problem = dirname(suite.testsDir);
  for (const [name, path] of Object.entries(suite.staticAssets)) {
    const source = join(problem, path);
    if ((await stat(source)).isDirectory()) {
      for (const file of await readDirectoryFiles(source))
        await sandbox.writeFile(`${suiteDir}/tests/assets/${name}/${file.path}`, file.data, {
          mode: file.mode,
        });
    } else {
      await sandbox.writeFile(`${suiteDir}/tests/assets/${name}`, await readFile(source));
    }
  }
  await sandbox.writeFile(`${suiteDir}/${markersPluginModule}.py`, markersPluginSource);
}

/** The environment SlopCodeBench's runner gives pytest: the checkpoint and where each asset is. */
export function pytestEnv(suite: PytestSuite, index: number, workspace: string): Record<string, string> {
  const assets = join(workspace, suiteDir, 'tests', 'assets');
  return {
    PYTHONPATH: join(workspace, suiteDir),
    PYTHONDONTWRITEBYTECODE: '1',
    SCBENCH_CHECKPOINT: suite.checkpoints[index]!.name,
    LONGHAUL_PYTEST_MARKERS: JSON.stringify(Object.keys(suite.markers)),
    ...(Object.keys(suite.staticAssets).length > 0
      ? {
          SCBENCH_ASSETS_DIR: assets,
          ...Object.fromEntries(
            Object.keys(suite.staticAssets).map((name) => [
              `SCBENCH_ASSET_${name.toUpperCase()}`,
              join(assets, name),
            ]),
          ),
        }
      : {}),
  };
}

/** The argv of one pytest run for the checkpoint at `index`. */
export function pytestArgv(suite: PytestSuite, index: number): string[] {
  const checkpoint = suite.checkpoints[index]!;
  const files = suite.checkpoints
    .slice(0, index + 1)
    .filter((_item, position) => position === index || checkpoint.includePrior)
    .map((item) => `${suiteDir}/tests/${item.file}`);
  return [
    suite.python,
    '-m',
    'pytest',
    ...files,
    ...(checkpoint.testTimeoutSeconds !== undefined
      ? [`--timeout=${Math.floor(checkpoint.testTimeoutSeconds)}`]
      : []),
    `--entrypoint=${suite.entrypoint}`,
    `--checkpoint=${checkpoint.name}`,
    `--junitxml=${suiteDir}/junit.xml`,
    '-o',
    'junit_family=xunit1',
    '-p',
    markersPluginModule,
    '-p',
    'no:cacheprovider',
    '-q',
  ];
}

/** pytest-timeout's failure message, e.g. "Failed: Timeout >10.0s". */
const testTimeout = /^Failed: Timeout >/;

/** Why a test did not pass; a test stopped by the per-test time limit has a reason of its own. */
function reasonOf(test: JunitTest): string {
  if (test.message !== undefined && testTimeout.test(test.message)) {
    return `timeout: ${test.message.replace(/^Failed: /, '')} (the problem's per-test timeout)`;
  }
  return `${test.outcome}: ${test.message ?? ''}`.trim();
}

/**
 * Runs the step's pytest suite (its own file, plus earlier checkpoints' files as regression) in a
 * sandbox over the step's snapshot and turns the JUnit XML into case results.
 */
export async function runPytestStep(ctx: StepScoreContext, suite: PytestSuite): Promise<CaseResult[]> {
  const checkpoint = suite.checkpoints[ctx.step.index];
  if (!checkpoint) {
    throw new ClassifiedError(
      'scorer',
      `the pytest suite of task ${ctx.task.id} has no checkpoint for step ${ctx.step.index + 1}`,
    );
  }
  const sandbox = await ctx.openSandbox(ctx.snapshot);
  try {
    await installSuite(sandbox, suite);
    const argv = pytestArgv(suite, ctx.step.index);
    const result = await sandbox.exec(argv, {
      env: pytestEnv(suite, ctx.step.index, sandbox.workspace),
      timeoutMs: suite.timeoutMs,
      signal: ctx.signal,
      maxOutputBytes: 4 * 1_048_576,
    });
    await mkdir(ctx.outDir, { recursive: true });
    await writeFile(
      join(ctx.outDir, 'pytest.log'),
      `$ ${argv.join(' ')}\n\n${result.stdout}\n${result.stderr}`,
    );
    if (result.timedOut) {
      throw new ClassifiedError(
        'scorer',
        `pytest did not finish within ${suite.timeoutMs} ms (see tests/pytest.log)`,
      );
    }
    const xml = await sandbox.readFile(`${suiteDir}/junit.xml`).catch(() => undefined);
    // Exit 5: nothing collected. 0 and 1 are results; anything else is a broken suite or interpreter.
    if (result.exitCode === 5) return [];
    if (!xml || (result.exitCode !== 0 && result.exitCode !== 1)) {
      throw new ClassifiedError(
        'scorer',
        `pytest exited with code ${result.exitCode} for ${checkpoint.name} of task ${ctx.task.id}:\n${tail(result.stdout + result.stderr)}`,
      );
    }
    const text = Buffer.from(xml).toString('utf8');
    await writeFile(join(ctx.outDir, 'junit.xml'), text);
    // The XML parser is imported when a pytest suite first reports, not when the scorer loads.
    const { parseJunit } = await import('./junit.js');
    // A skipped test stays in the total and does not pass, as upstream counts it; its reason is kept.
    return parseJunit(text).map((test) => {
      const category = categorize(test, checkpoint.file, suite.markers);
      return {
        id: `${checkpoint.name}/${category}/${test.id}`,
        step: suite.checkpoints.find((item) => item.file === test.file)?.name ?? checkpoint.name,
        category,
        passed: test.outcome === 'passed',
        ...(test.outcome === 'passed' ? {} : { reason: reasonOf(test) }),
        durationMs: test.durationMs,
      };
    });
  } finally {
    await sandbox.close();
  }
}

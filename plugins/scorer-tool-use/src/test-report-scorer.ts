import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  exitCodeMatches,
  prepareCaseWorkspace,
  readCase,
  regularFiles,
  type Score,
  type StepScoreContext,
} from '@longhaul/core';
import type { TestReportOptions } from './options.js';
import { isPass, parseTestOutput, type TestStatus } from './test-output.js';

export const testReportVersion = '1.0.0';

async function caseFiles(dir: string): Promise<string[]> {
  const files = await regularFiles(dir).catch(() => [] as string[]);
  return files
    .filter((path) => /\.ya?ml$/.test(path))
    .map((path) => join(dir, path))
    .sort();
}

/**
 * Step scope: runs each CLI case of the step (in a sandbox of its own over the agent's final
 * workspace) and reads the per-test outcomes from what the test runner prints, as IDE-Bench's
 * grader does. Gives the per-test pass rate the paper's consistency and near-miss analyses use,
 * where a case (`run_tests.sh <task>`) only says pass or fail.
 */
export class TestReportScorer {
  readonly scope = 'step';
  readonly version = testReportVersion;

  constructor(private readonly options: TestReportOptions) {}

  async score(ctx: StepScoreContext): Promise<Score[]> {
    const files = ctx.step.cases ? await caseFiles(ctx.step.cases) : [];
    const tests = new Map<string, TestStatus>();
    let exitOk = files.length > 0;
    const entrypoint = ctx.task.entrypoint.split(/\s+/).filter(Boolean);
    for (const file of files) {
      const parsed = await readCase(file);
      if (parsed.kind !== 'cli') continue;
      const spec = parsed.spec;
      const sandbox = await ctx.openSandbox(ctx.snapshot);
      try {
        // What the case owns is the dataset's: the agent's conftest, config or startup files never run.
        await prepareCaseWorkspace(sandbox, spec);
        const run = (argv: string[], stdin: string | undefined) =>
          sandbox.exec([...entrypoint, ...argv], {
            stdin: stdin ?? '',
            env: spec.env,
            timeoutMs: spec.timeoutMs ?? ctx.task.timeouts.caseMs,
            maxOutputBytes: this.options.maxOutputBytes,
            signal: ctx.signal,
          });
        // The case's own invocations first (IDE-Bench's canary, which must fail): they count in exit_ok.
        for (const before of spec.before ?? [])
          if (!exitCodeMatches(before.exitCode, (await run(before.argv, before.stdin)).exitCode))
            exitOk = false;
        const result = await run(spec.argv, spec.stdin);
        if (!exitCodeMatches(spec.expect.exitCode, result.exitCode)) exitOk = false;
        const name = file.slice(ctx.step.cases!.length + 1).replace(/\.ya?ml$/, '');
        const out = join(ctx.outDir, 'test-report', `${name}.log`);
        await mkdir(dirname(out), { recursive: true });
        await writeFile(
          out,
          `exit code: ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}\n${result.stdout}\n${result.stderr}`,
        );
        const prefix = files.length > 1 ? `${name}/` : '';
        for (const [test, status] of parseTestOutput(`${result.stdout}\n${result.stderr}`))
          tests.set(`${prefix}${test}`, status);
      } finally {
        await sandbox.close();
      }
    }
    const statuses = [...tests.values()];
    const passed = statuses.filter(isPass).length;
    const judged = statuses.length > 0;
    return [
      { metric: 'passed', value: judged ? passed : null },
      { metric: 'failed', value: judged ? statuses.length - passed : null },
      { metric: 'total', value: judged ? statuses.length : null },
      {
        metric: 'pass_rate',
        value: judged ? passed / statuses.length : null,
        detail: { tests: Object.fromEntries(tests) },
      },
      { metric: 'exit_ok', value: files.length > 0 ? exitOk : null },
    ];
  }
}

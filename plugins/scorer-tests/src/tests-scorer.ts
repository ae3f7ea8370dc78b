import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  ClassifiedError,
  type FileEntry,
  type PytestSuite,
  pytestSuiteKey,
  pytestSuiteSchema,
  type Release,
  type Sandbox,
  type Score,
  type Slots,
  type StepScoreContext,
} from '@longhaul/core';
import { CaseCache, casesFor, type LoadedCase } from './cases.js';
import type { Check } from './check-output.js';
import { type HttpCaseRun, runHttpCase } from './http/run-http-case.js';
import type { TestsOptions } from './options.js';
import { runPytestStep } from './pytest/run-pytest.js';
import { type CaseRun, resetWorkspace, runCase } from './run-case.js';
import { splitCommand } from './split-command.js';
import { type CaseResult, tallyScores } from './tally.js';

export const version = '2.0.0';

function stepDir(item: LoadedCase): string {
  return `${String(item.step.index + 1).padStart(2, '0')}-${item.step.id}`;
}

function feedbackFor(results: CaseResult[], checks: Map<string, Check[]>): string | undefined {
  const failed = results.filter((result) => !result.passed);
  if (failed.length === 0) return undefined;
  const lines = failed.map((result) => {
    const failures = (checks.get(result.id) ?? []).filter((check) => !check.passed);
    return `- ${result.id}: ${failures.map((check) => `${check.target}: ${check.summary}`).join('; ')}`;
  });
  return `${failed.length} of ${results.length} hidden test cases failed:\n${lines.join('\n')}`;
}

/** The task's pytest suite (SlopCodeBench format), when its source gave one. */
function pytestSuiteOf(ctx: StepScoreContext): PytestSuite | undefined {
  const raw = ctx.task.metadata[pytestSuiteKey];
  if (raw === undefined) return undefined;
  const parsed = pytestSuiteSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ClassifiedError(
      'scorer',
      `task ${ctx.task.id}: metadata.${pytestSuiteKey} is not a pytest suite: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}

/**
 * Runs the hidden CLI cases of a step (and, as regression, those of every earlier step) against
 * the step's snapshot, in a sandbox of its own.
 */
export class TestsScorer {
  readonly scope = 'step' as const;
  readonly version = version;
  private readonly cases = new CaseCache();
  /** The judge's self-check of each task's step, run once: how the suite broke with the reference. */
  private readonly selfChecks = new Map<string, Promise<string | undefined>>();

  /**
   * @param slots the run's budget of cases at once, shared with the other trials (tokens.CaseSlots);
   * without it only `concurrency` bounds this scorer's cases.
   */
  constructor(
    private readonly options: TestsOptions,
    private readonly slots?: Slots,
  ) {}

  /** Up to `wanted` slots: waits for the first, takes more only while they are free. */
  private async hold(wanted: number, signal: AbortSignal): Promise<Release[]> {
    if (!this.slots) return Array.from({ length: wanted }, () => () => undefined);
    const held = [await this.slots.acquire(signal)];
    while (held.length < wanted) {
      const more = this.slots.tryAcquire();
      if (!more) break;
      held.push(more);
    }
    return held;
  }

  /**
   * Whether the suite breaks with the step's reference solution too (then the judge is broken):
   * asked only when a submission's run broke, and once per task step for the scorer's life.
   */
  private judgeWorks(
    ctx: StepScoreContext,
    check: () => Promise<string | undefined>,
  ): Promise<string | undefined> {
    const key = `${ctx.task.id}\0${ctx.task.hash}\0${ctx.step.index}`;
    let found = this.selfChecks.get(key);
    if (!found) {
      found = check();
      // A check cut short (the run was cancelled) is asked again next time.
      found.catch(() => this.selfChecks.delete(key));
      this.selfChecks.set(key, found);
    }
    return found;
  }

  async score(ctx: StepScoreContext): Promise<Score[]> {
    const suite = pytestSuiteOf(ctx);
    if (suite) {
      const [release] = await this.hold(1, ctx.signal);
      const { results, failure } = await runPytestStep(ctx, suite, (check) =>
        this.judgeWorks(ctx, check),
      ).finally(release);
      const failed = results.filter((result) => !result.passed);
      const lines = failed.map((result) => `- ${result.id}`);
      // The failure's first line only: what follows may quote the hidden tests.
      const feedback = failure
        ? `the hidden tests could not run to the end: ${failure.split('\n')[0]}${lines.length ? `\n${failed.length} of ${results.length} that ran failed:\n${lines.join('\n')}` : ''}`
        : failed.length
          ? `${failed.length} of ${results.length} hidden tests failed:\n${lines.join('\n')}`
          : undefined;
      return tallyScores(
        this.options.regression ? results : results.filter((result) => result.category !== 'regression'),
        feedback,
        failure,
      );
    }
    const cases = await casesFor(ctx.task.steps, ctx.step, this.options.regression, this.cases);
    if (cases.length === 0) return tallyScores([], undefined);
    const entrypoint = splitCommand(ctx.task.entrypoint);
    const results: CaseResult[] = new Array(cases.length);
    const checks = new Map<string, Check[]>();
    let next = 0;
    let failed = false;
    // Cases share nothing but the snapshot, so each worker runs its share in a sandbox of its own.
    // Each holds one of the run's case slots until it ends, so trials side by side share the cores.
    const worker = async (release: Release) => {
      const sandbox = await ctx.openSandbox(ctx.snapshot).catch((error: unknown) => {
        release();
        throw error;
      });
      try {
        const baseline = await sandbox.list('.', { recursive: true });
        while (next < cases.length && !failed) {
          ctx.signal.throwIfAborted();
          const position = next++;
          const item = cases[position]!;
          const { run, result } = await this.runOne(sandbox, item, entrypoint, ctx, baseline);
          await resetWorkspace(sandbox, baseline, ctx.snapshot, Object.keys(item.spec.files ?? {}));
          results[position] = result;
          checks.set(item.id, run.checks);
          await this.writeRaw(ctx.outDir, item, result, run, entrypoint);
        }
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        await sandbox.close();
        release();
      }
    };
    const releases = await this.hold(Math.min(this.options.concurrency, cases.length), ctx.signal);
    // Every worker has ended (and closed its sandbox) before the scorer returns or throws.
    const settled = await Promise.allSettled(releases.map(worker));
    const rejected = settled.find((outcome) => outcome.status === 'rejected');
    if (rejected) throw rejected.reason;
    return tallyScores(results, feedbackFor(results, checks));
  }

  private async runOne(
    sandbox: Sandbox,
    item: LoadedCase,
    entrypoint: string[],
    ctx: StepScoreContext,
    baseline: FileEntry[],
  ): Promise<{ run: CaseRun | HttpCaseRun; result: CaseResult }> {
    const started = Date.now();
    const timeoutMs = item.spec.timeoutMs ?? ctx.task.timeouts.caseMs;
    const run =
      item.kind === 'http'
        ? await runHttpCase(sandbox, item.spec, {
            entrypoint,
            timeoutMs,
            signal: ctx.signal,
            baseline,
          }).catch((error: unknown) => {
            if (error instanceof ClassifiedError)
              throw new ClassifiedError(error.errorClass, `${item.id}: ${error.message}`, { cause: error });
            throw error;
          })
        : await runCase(sandbox, item.spec, {
            entrypoint,
            timeoutMs,
            maxOutputBytes: this.options.maxOutputBytes,
            signal: ctx.signal,
            baseline,
          });
    const failedCheck = run.checks.find((check) => !check.passed);
    const result: CaseResult = {
      id: item.id,
      step: item.step.id,
      category: item.scoredAs,
      passed: !failedCheck,
      ...(failedCheck ? { reason: `${failedCheck.target}: ${failedCheck.reason}` } : {}),
      durationMs: Date.now() - started,
    };
    return { run, result };
  }

  private async writeRaw(
    outDir: string,
    item: LoadedCase,
    result: CaseResult,
    run: CaseRun | HttpCaseRun,
    entrypoint: string[],
  ): Promise<void> {
    const file = join(outDir, stepDir(item), item.category, `${item.name}.json`);
    await mkdir(dirname(file), { recursive: true });
    const common = {
      case: item.id,
      kind: item.kind,
      scoredAs: item.scoredAs,
      passed: result.passed,
      reason: result.reason ?? null,
      durationMs: result.durationMs,
    };
    const raw =
      item.kind === 'http' && 'exchanges' in run
        ? {
            ...common,
            server: [...entrypoint, ...item.spec.server.argv],
            requests: item.spec.requests,
            actual: { exchanges: run.exchanges, output: run.server },
            checks: run.checks,
          }
        : item.kind === 'cli' && 'files' in run
          ? {
              ...common,
              command: [...entrypoint, ...item.spec.argv],
              expected: item.spec.expect,
              actual: {
                exitCode: run.result?.exitCode ?? null,
                timedOut: run.result?.timedOut ?? false,
                truncated: run.result?.truncated ?? false,
                stdout: run.result?.stdout ?? '',
                stderr: run.result?.stderr ?? '',
                files: run.files,
              },
              checks: run.checks,
            }
          : common;
    await writeFile(file, `${JSON.stringify(raw, null, 2)}\n`);
  }
}

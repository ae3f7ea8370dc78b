import type { Score, Scorer, StepScoreContext } from '@longhaul/core';
import { activeSuite, isSuperseded } from './cascade.js';
import type { SweStepsOptions } from './options.js';
import { runSuite, type SuiteRun } from './run-suite.js';
import { fileOf, readSuite, type StepSuite } from './suite.js';
import { failing, feedbackText, percent, tally } from './verdict.js';

export const version = '3';

/**
 * Where the tests ran against where mining validated them: a PR whose tests ran on another
 * interpreter or pytest may fail (or pass) for reasons that are not the agent's.
 */
function environmentDetail(own: StepSuite, run: SuiteRun) {
  if (!run.runtime) return {};
  const validated = own.validatedWith;
  const same =
    validated === undefined
      ? undefined
      : validated.python === run.runtime.python &&
        validated.pytest === run.runtime.pytest &&
        validated.executable === run.runtime.executable;
  return { environment: { scored: run.runtime, ...(validated ? { validated, same } : {}) } };
}

/** Scripts whose workspace carries the agent's own work from PR to PR: their suite cascades. */
const carryingScripts = ['conversation', 'checkpoints'];

/** Scripts that score every PR on the final state (PRD): after every later PR of the chain. */
const finalStateScripts = ['single-shot'];

/**
 * Step scorer `swe-steps`: runs the PR's gold tests (and, cascading, every earlier PR's) in a
 * sandbox of its own over the step's snapshot and scores F2P, P2P and PR success (every F2P and
 * P2P passes). The feedback of a reflection cycle comes from the suite the setting runs.
 */
export class SweStepsScorer implements Extract<Scorer, { scope: 'step' }> {
  readonly scope = 'step';
  readonly version = version;

  constructor(private readonly options: SweStepsOptions) {}

  private cascades(ctx: StepScoreContext): boolean {
    if (this.options.cascade === 'auto') return carryingScripts.includes(ctx.trial.condition.script.id);
    return this.options.cascade === 'always';
  }

  async score(ctx: StepScoreContext): Promise<Score[]> {
    const read = await readSuite(ctx.step);
    // On the final state, a test whose module a later commit of the chain rewrote or removed (a
    // later PR that no longer lists it, a folded commit moving the suite to a new API) stands as
    // that commit left it: PR j's version cannot pass there for anyone, the gold trace included.
    // It is left out, as the cascade leaves out what a later PR removed.
    const finalState = finalStateScripts.includes(ctx.trial.condition.script.id);
    const later = finalState
      ? await Promise.all(ctx.task.steps.slice(ctx.step.index + 1).map((step) => readSuite(step)))
      : [];
    const changed = new Set(finalState ? read.changedLater : []);
    const current = (id: string) => !changed.has(fileOf(id)) && !isSuperseded(id, later);
    const own = { ...read, f2p: read.f2p.filter(current), p2p: read.p2p.filter(current) };
    const superseded = [...read.f2p, ...read.p2p].filter((id) => !current(id));
    const cascading = this.cascades(ctx) && ctx.step.index > 0;
    const chain = cascading
      ? await Promise.all(ctx.task.steps.slice(0, ctx.step.index + 1).map((step) => readSuite(step)))
      : [own];
    const active = activeSuite(chain);
    const timeoutMs = this.options.timeoutSeconds * 1000;
    const run = await runSuite(ctx, active, {
      command: this.options.command ?? own.command,
      extraArgs: this.options.args,
      timeoutMs,
      name: 'swe-steps',
      testRules: read.testRules,
    });
    const f2p = tally(own.f2p, run.outcomes);
    const p2p = tally(own.p2p, run.outcomes);
    // A PR is judged on its F2P tests: with none left (every one superseded on the final state),
    // P2P alone would pass it for an agent that did nothing, so its success is no value, not a pass.
    const judged = own.f2p.length > 0;
    const success = judged ? f2p.passed === f2p.total && p2p.passed === p2p.total : null;
    const allIds = [...active.ids.keys()];
    const cascaded = tally(allIds, run.outcomes);
    const decisive = cascading ? allIds : [...own.f2p, ...own.p2p];
    const failed = failing(decisive, run.outcomes);
    const feedback =
      failed.length > 0
        ? feedbackText({
            pr: own.pr,
            earlier: cascading ? chain.slice(0, -1).map((s) => s.pr) : [],
            failed,
            total: decisive.length,
            output: run.output,
            timedOut: run.timedOut,
            timeoutMs,
            maxChars: this.options.feedbackChars,
            maxIds: this.options.feedbackIds,
          })
        : undefined;
    const ownIds = new Set([...own.f2p, ...own.p2p]);
    const detail = {
      pr: own.pr,
      judged,
      // Why not: later commits of the chain rewrote the module of every F2P test, or it lists none.
      ...(judged ? {} : { reason: read.f2p.length > 0 ? 'superseded' : 'no-f2p' }),
      f2p: Object.fromEntries(own.f2p.map((id) => [id, run.outcomes[id]])),
      p2p: Object.fromEntries(own.p2p.map((id) => [id, run.outcomes[id]])),
      ...(cascading
        ? {
            cascaded: Object.fromEntries(
              allIds
                .filter((id) => !ownIds.has(id))
                .map((id) => [id, { pr: active.ids.get(id), outcome: run.outcomes[id] }]),
            ),
          }
        : {}),
      ...(superseded.length > 0 ? { superseded } : {}),
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      collectErrors: run.collectErrors,
      ...(run.tampered ? { tampered: run.tampered } : {}),
      ...environmentDetail(own, run),
    };
    return [
      {
        metric: 'success',
        value: success === null ? null : success ? 1 : 0,
        detail,
        ...(feedback ? { feedback } : {}),
      },
      { metric: 'f2p_passed', value: f2p.passed },
      { metric: 'f2p_total', value: f2p.total },
      { metric: 'p2p_passed', value: p2p.passed },
      { metric: 'p2p_total', value: p2p.total },
      { metric: 'f2p', value: percent(f2p) },
      { metric: 'p2p', value: percent(p2p) },
      { metric: 'cascaded_success', value: cascading ? (cascaded.passed === cascaded.total ? 1 : 0) : null },
      { metric: 'cascaded_passed', value: cascading ? cascaded.passed : null },
      { metric: 'cascaded_total', value: cascading ? cascaded.total : null },
      { metric: 'suite_size', value: decisive.length },
    ];
  }
}

import type {
  Environment,
  Sandbox,
  Scorer,
  ScoreValue,
  SnapshotRef,
  StepScoreContext,
  StepStatus,
} from '../contracts/index.js';
import { bounded, classifyAs, errorMessage, settleWithin } from './faults.js';

export interface NamedScorer<S extends Scorer = Scorer> {
  /** The scorer's label: the prefix of its score keys. */
  label: string;
  scorer: S;
}

export type StepScorer = Scorer & { scope: 'step' };

export interface StepOutcome {
  status: StepStatus;
  scores: Record<string, ScoreValue>;
  details: Record<string, unknown>;
  /** What the scorers say the agent may be told in a feedback cycle. */
  feedback: string[];
  /** The snapshot the scores are of. */
  snapshot?: SnapshotRef;
  /** The workspace the step's turn began from (see `StepScoreContext.start`). */
  start?: SnapshotRef;
}

/** The scorers' context, minus `openSandbox`, which opens sandboxes of `environment`. */
export type StepScoringInput = Omit<StepScoreContext, 'openSandbox'> & {
  environment: Environment;
  /** How long one scorer may take for the step. */
  timeoutMs: number;
};

const isAgentOutcome = (status: StepStatus) => status === 'ok' || status === 'failed';

/**
 * Runs the step scorers over a snapshot. A scorer that throws loses its scores and turns an
 * `ok`/`failed` step into `error:scorer` (or `cancelled` when the run was aborted); the others
 * still score. Sandboxes a scorer opened and left open are closed.
 */
export async function scoreStep(
  scorers: NamedScorer<StepScorer>[],
  input: StepScoringInput,
): Promise<StepOutcome> {
  const outcome: StepOutcome = { status: input.status, scores: {}, details: {}, feedback: [] };
  for (const { label, scorer } of scorers) {
    const opened: Sandbox[] = [];
    try {
      const { environment, timeoutMs, ...context } = input;
      const score = () =>
        scorer.score({
          ...context,
          openSandbox: async (from) => {
            const sandbox = await environment.open({
              runId: input.trial.runId,
              trialId: input.trial.id,
              purpose: 'scorer',
              task: { id: input.task.id, root: input.task.root, seed: input.task.seed },
              needs: input.task.environment,
              from,
            });
            opened.push(sandbox);
            return sandbox;
          },
        });
      const scores = await bounded(score, timeoutMs, `scorer ${label}`, input.signal);
      const details: Record<string, unknown> = {};
      for (const score of scores) {
        outcome.scores[`${label}.${score.metric}`] = score.value;
        if (score.detail !== undefined) details[score.metric] = score.detail;
        if (score.feedback) outcome.feedback.push(score.feedback);
      }
      if (Object.keys(details).length > 0) outcome.details[label] = details;
    } catch (error) {
      const status = classifyAs(error, 'scorer', input.signal);
      outcome.details[label] = { error: errorMessage(error), status };
      if (status === 'cancelled' || isAgentOutcome(outcome.status)) outcome.status = status;
    } finally {
      for (const sandbox of opened) await settleWithin(sandbox.close(), 15_000);
    }
  }
  return outcome;
}

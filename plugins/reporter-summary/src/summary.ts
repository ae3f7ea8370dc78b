import {
  type ConditionScore,
  countOutcomes,
  mostToolCallsFailed,
  type ScoreValue,
  type StepStatus,
  stepOutcome,
  type ToolCalls,
  type TrialRecord,
  type TrialSpec,
  type Usage,
} from '@longhaul/core';

export type Scores = Record<string, ScoreValue>;

export interface StepSummary {
  index: number;
  id: string;
  status: StepStatus;
  /** The agent's tool calls in the step and the failed ones (absent where not recorded). */
  tools?: ToolCalls;
  scores: Scores;
}

export interface TrialSummary {
  id: string;
  task: string;
  condition: string;
  repeat: number;
  status: TrialRecord['status'];
  /** When the trial started (ISO 8601); absent in records written before trials carried it. */
  startedAt?: string;
  durationMs: number;
  /** What the gateway metered: the cost every table and limit counts. */
  usage: Usage;
  /** The agent's own estimate, when it gave one beside the gateway's metering; never summed into `costUsd`. */
  agentUsage?: Usage;
  steps: StepSummary[];
  scores: Scores;
}

export interface SolveRates {
  strict: number | null;
  iso: number | null;
  core: number | null;
}

export interface ConditionSummary {
  condition: string;
  trials: number;
  /** The tasks of the condition's trials, in order: they differ between conditions under `--limit`. */
  tasks: string[];
  /** Steps planned over all the condition's trials. */
  steps: number;
  /** Steps scored from the agent's work: the denominator of the solve rates. */
  scored: number;
  /** Steps lost to a fault (`error:*`), with the steps of an errored trial it never reached. */
  errored: number;
  /** The errored steps per fault class (`model`, `sandbox`, …). */
  errorClasses: Record<string, number>;
  /** Steps cut short or never reached because the run was stopped. */
  cancelled: number;
  solveRates: SolveRates;
  /**
   * Scored steps where most of the agent's tool calls failed (its tools did not work for it, so
   * the step measured little of the agent); null when no step made (or recorded) a tool call.
   */
  toolFailures: number | null;
  /**
   * Steps, scored or not, with a tamper signal (`integrity.tamper` above 0: the agent changed the
   * tests, their configuration, runner hooks, start-up or results files); null when no step has
   * the score (the integrity scorer did not run).
   */
  tampered: number | null;
  costUsd: number;
  /** Trial time: the durations of the condition's trials, summed. */
  durationMs: number;
  /** Wall time: how long at least one of the condition's trials was running (null when unknown). */
  wallMs: number | null;
  /** Mean of each numeric score over the scored steps and the trials that have it (true = 1, false = 0). */
  scores: Record<string, number>;
  /**
   * Per score, the scored steps (or trials, for a trial score) the mean left out because they had
   * no value there (nothing measured: a ratio over no code), never averaged in as 0. Only scores
   * with some left out are listed.
   */
  skipped: Record<string, number>;
}

export interface ExperimentScoreSummary {
  key: string;
  condition: string | null;
  value: ScoreValue;
}

/** summary.json */
export interface RunSummary {
  experiment: { name: string; file: string };
  runDir: string;
  trials: TrialSummary[];
  conditions: ConditionSummary[];
  experimentScores: ExperimentScoreSummary[];
  /** Wall time of the whole run's trials, as `wallMs` of a condition. */
  wallMs: number | null;
  /** Trial time of the whole run: every trial's duration, summed. */
  durationMs: number;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Scores with keys in sorted order, so two runs print the same text for the same values. */
function sortedScores(scores: Scores): Scores {
  return Object.fromEntries(
    Object.keys(scores)
      .sort(byString)
      .map((key) => [key, scores[key] ?? null]),
  );
}

function usageOf(usage: Usage): Usage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    costUsd: usage.costUsd,
  };
}

/** Every planned step of the trial; a step the trial never reached counts as skipped. */
function stepsOf(spec: TrialSpec, record: TrialRecord): StepSummary[] {
  return spec.task.steps.map((step) => {
    const done = record.steps.find((candidate) => candidate.index === step.index);
    return {
      index: step.index,
      id: step.id,
      status: done?.status ?? 'skipped',
      ...(done?.tools ? { tools: { calls: done.tools.calls, failed: done.tools.failed } } : {}),
      scores: sortedScores(done?.scores ?? {}),
    };
  });
}

export function summarizeTrial(spec: TrialSpec, record: TrialRecord): TrialSummary {
  return {
    id: record.id,
    task: record.task,
    condition: record.condition,
    repeat: record.repeat,
    status: record.status,
    ...(record.startedAt ? { startedAt: record.startedAt } : {}),
    durationMs: record.durationMs,
    usage: usageOf(record.usage),
    ...(record.agentUsage ? { agentUsage: usageOf(record.agentUsage) } : {}),
    steps: stepsOf(spec, record),
    scores: sortedScores(record.scores),
  };
}

function solved(value: ScoreValue | undefined): boolean {
  return value === 1 || value === true;
}

function numeric(value: ScoreValue | undefined): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function means(scoreSets: Scores[]): Record<string, number> {
  const sums = new Map<string, { total: number; count: number }>();
  for (const scores of scoreSets) {
    for (const [key, value] of Object.entries(scores)) {
      const number = numeric(value);
      if (number === undefined) continue;
      const sum = sums.get(key) ?? { total: 0, count: 0 };
      sum.total += number;
      sum.count += 1;
      sums.set(key, sum);
    }
  }
  return Object.fromEntries(
    [...sums.keys()].sort(byString).map((key) => [key, sums.get(key)!.total / sums.get(key)!.count]),
  );
}

/** The score whose value above 0 says a step tampered with the machinery of judgment. */
export const tamperKey = 'integrity.tamper';

/**
 * Steps with a tamper signal, whatever their outcome: an attempt on the judge is worth seeing
 * even in a step that errored. Null when no step has the score.
 */
function tamperedSteps(steps: StepSummary[]): number | null {
  const measured = steps.filter((step) => typeof step.scores[tamperKey] === 'number');
  return measured.length === 0 ? null : measured.filter((step) => Number(step.scores[tamperKey]) > 0).length;
}

/**
 * Per score key, how many of the sets (scored steps, or trials) lack a numeric value for it,
 * among the keys some set has: what a mean over the others left out.
 */
function unmeasured(scoreSets: Scores[]): Record<string, number> {
  const keys = new Set(scoreSets.flatMap((scores) => Object.keys(scores)));
  const counts: [string, number][] = [];
  for (const key of [...keys].sort(byString)) {
    const missing = scoreSets.filter((scores) => numeric(scores[key]) === undefined).length;
    if (missing > 0) counts.push([key, missing]);
  }
  return Object.fromEntries(counts);
}

/**
 * The length of the union of the trials' intervals: time during which at least one trial ran.
 * Trials side by side count once, and the pause between a killed run and its resume not at all.
 */
export function wallTime(trials: TrialSummary[]): number | null {
  // Trials that never started (the rest of a run stopped with Ctrl-C) took no time: the wall time
  // is that of the ones that ran, and there is none only when none did.
  const started = trials.filter((trial) => trial.startedAt !== undefined);
  if (started.length === 0) return null;
  const intervals = started
    .map((trial) => {
      const start = Date.parse(trial.startedAt!);
      return [start, start + trial.durationMs] as const;
    })
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [start, end] = intervals[0]!;
  for (const [from, to] of intervals.slice(1)) {
    if (from > end) {
      total += end - start;
      [start, end] = [from, to];
    } else {
      end = Math.max(end, to);
    }
  }
  return total + end - start;
}

/**
 * Aggregates of one condition. Solve rates are shares of the scored steps (a step that failed its
 * tests counts as unsolved); errored and cancelled steps are counted beside them, and with no
 * scored step a rate is null, not 0.
 */
export function summarizeCondition(
  condition: string,
  trials: TrialSummary[],
  solveScorer: string,
  /** Whether the solve scorer ran in this condition; rates it did not measure are null, not 0. */
  measured = true,
): ConditionSummary {
  const steps = trials.flatMap((trial) => trial.steps);
  // One definition of what a step counts as, shared with every other table (see stepOutcome).
  const outcomes = trials.flatMap((trial) => trial.steps.map((step) => stepOutcome(step, trial.status)));
  const counts = countOutcomes(outcomes);
  const scored = steps.filter((_, index) => outcomes[index]!.outcome === 'scored');
  const rate = (metric: keyof SolveRates) =>
    scored.length === 0 || !measured
      ? null
      : scored.filter((step) => solved(step.scores[`${solveScorer}.${metric}`])).length / scored.length;
  return {
    condition,
    trials: trials.length,
    tasks: [...new Set(trials.map((trial) => trial.task))],
    steps: steps.length,
    scored: scored.length,
    errored: counts.errored,
    errorClasses: counts.errorClasses,
    cancelled: counts.cancelled,
    solveRates: { strict: rate('strict'), iso: rate('iso'), core: rate('core') },
    // No call at all measured nothing: a dash, not 0.
    toolFailures: steps.some((step) => (step.tools?.calls ?? 0) > 0)
      ? scored.filter((step) => mostToolCallsFailed(step.tools)).length
      : null,
    tampered: tamperedSteps(steps),
    costUsd: trials.reduce((sum, trial) => sum + trial.usage.costUsd, 0),
    durationMs: trials.reduce((sum, trial) => sum + trial.durationMs, 0),
    wallMs: wallTime(trials),
    scores: means([...scored.map((step) => step.scores), ...trials.map((trial) => trial.scores)]),
    skipped: {
      ...unmeasured(scored.map((step) => step.scores)),
      ...unmeasured(trials.map((trial) => trial.scores)),
    },
  };
}

export function summarizeExperimentScores(
  scores: (ConditionScore & { scorer: string })[],
): ExperimentScoreSummary[] {
  return scores
    .map((score) => ({
      key: `${score.scorer}.${score.metric}`,
      condition: score.condition ?? null,
      value: score.value,
    }))
    .sort((a, b) => byString(a.condition ?? '', b.condition ?? '') || byString(a.key, b.key));
}

export function summarizeRun(
  experiment: { name: string; file: string },
  runDir: string,
  trials: { spec: TrialSpec; record: TrialRecord }[],
  experimentScores: (ConditionScore & { scorer: string })[],
  solveScorer: string,
): RunSummary {
  const summaries = trials
    .map(({ spec, record }) => summarizeTrial(spec, record))
    .sort((a, b) => byString(a.id, b.id));
  const conditions = [...new Set(summaries.map((trial) => trial.condition))].sort(byString);
  return {
    experiment: { name: experiment.name, file: experiment.file },
    runDir,
    trials: summaries,
    conditions: conditions.map((condition) =>
      summarizeCondition(
        condition,
        summaries.filter((trial) => trial.condition === condition),
        solveScorer,
        trials.some(
          ({ spec }) =>
            spec.condition.key === condition && spec.scorers.some((ref) => ref.label === solveScorer),
        ),
      ),
    ),
    experimentScores: summarizeExperimentScores(experimentScores),
    wallMs: wallTime(summaries),
    durationMs: summaries.reduce((sum, trial) => sum + trial.durationMs, 0),
  };
}

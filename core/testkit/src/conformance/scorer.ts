import type {
  ConditionScore,
  ExperimentScoreContext,
  Scorer,
  StepScoreContext,
  TrialScoreContext,
} from '@longhaul/core';
import { expect } from 'vitest';
import { type Check, describeChecks, isJsonValue } from './checks.js';

export interface ScorerFixture {
  scorer: Scorer;
  /** A context of the scorer's scope. */
  context: StepScoreContext | TrialScoreContext | ExperimentScoreContext;
  dispose?(): Promise<void>;
}

export interface ScorerContext {
  fixture: () => Promise<ScorerFixture>;
  /** Metrics the scorer must give for the fixture. */
  metrics: string[];
  /** Whether the same input must give the same values (regrade relies on it; judges may opt out). */
  deterministic: boolean;
}

const metricPattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

async function scoreWith(fixture: ScorerFixture): Promise<ConditionScore[]> {
  const { scorer, context } = fixture;
  // The fixture gives a context of the scorer's scope; the union cannot say so.
  return (scorer.score as (ctx: unknown) => Promise<ConditionScore[]>)(context);
}

async function withScores(
  context: ScorerContext,
  use: (scores: ConditionScore[], fixture: ScorerFixture) => Promise<void> | void,
): Promise<void> {
  const fixture = await context.fixture();
  try {
    await use(await scoreWith(fixture), fixture);
  } finally {
    await fixture.dispose?.();
  }
}

export const scorerChecks: Check<ScorerContext>[] = [
  {
    name: 'declares its scope and a version',
    run: async (context) => {
      const { scorer, dispose } = await context.fixture();
      await dispose?.();
      expect(['step', 'trial', 'experiment']).toContain(scorer.scope);
      expect(typeof scorer.version === 'string' && scorer.version.trim() !== '', 'version must be set').toBe(
        true,
      );
    },
  },
  {
    name: 'returns well-formed scores: metric names, values, plain JSON details',
    run: (context) =>
      withScores(context, (scores) => {
        expect(Array.isArray(scores)).toBe(true);
        const seen = new Set<string>();
        for (const score of scores) {
          expect(score.metric, `metric name "${score.metric}"`).toMatch(metricPattern);
          const valid =
            score.value === null ||
            typeof score.value === 'boolean' ||
            (typeof score.value === 'number' && Number.isFinite(score.value));
          expect(
            valid,
            `${score.metric} = ${String(score.value)} is not a finite number, boolean or null`,
          ).toBe(true);
          if (score.detail !== undefined)
            expect(isJsonValue(score.detail), `${score.metric}: detail`).toBe(true);
          if (score.feedback !== undefined) expect(typeof score.feedback).toBe('string');
          if (score.condition !== undefined) expect(typeof score.condition).toBe('string');
          const key = `${score.condition ?? ''}\0${score.metric}`;
          expect(seen.has(key), `metric ${score.metric} given twice`).toBe(false);
          seen.add(key);
        }
      }),
  },
  {
    name: 'gives every metric it promises',
    run: (context) =>
      withScores(context, (scores) => {
        const metrics = new Set(scores.map((score) => score.metric));
        for (const metric of context.metrics)
          expect(metrics.has(metric), `missing metric ${metric}`).toBe(true);
      }),
  },
  {
    name: 'scores the same input the same way',
    run: async (context) => {
      if (!context.deterministic) return;
      const values = async () => {
        const fixture = await context.fixture();
        try {
          return (await scoreWith(fixture)).map((s) => [s.condition ?? '', s.metric, s.value]);
        } finally {
          await fixture.dispose?.();
        }
      };
      expect(await values()).toEqual(await values());
    },
  },
];

export interface DescribeScorerOptions {
  metrics?: string[];
  deterministic?: boolean;
  timeoutMs?: number;
}

/** The scorer conformance suite; `fixture` is called for every scoring, so each gets fresh inputs. */
export function describeScorer(
  name: string,
  fixture: () => Promise<ScorerFixture>,
  options: DescribeScorerOptions = {},
): void {
  describeChecks(
    `scorer conformance: ${name}`,
    scorerChecks,
    () => ({ fixture, metrics: options.metrics ?? [], deterministic: options.deterministic ?? true }),
    undefined,
    options.timeoutMs,
  );
}

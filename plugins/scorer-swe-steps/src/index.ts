import { definePlugin, type ModelGateway, type Scorer, tokens } from '@longhaul/core';
import type { z } from 'zod';
import { SweStepsAttributionScorer } from './attribution-scorer.js';
import { SweStepsHealthScorer } from './health-scorer.js';
import { attributionOptions, healthOptions, ratesOptions, sweStepsOptions, taskOptions } from './options.js';
import { SweStepsRatesScorer } from './rates-scorer.js';
import { SweStepsScorer } from './swe-steps-scorer.js';
import { SweStepsTaskScorer } from './task-scorer.js';

export {
  failureCategories,
  judgePrompt,
  judgeSystemPrompt,
  labelFailure,
  slugOf,
  traceText,
} from './attribution.js';
export { SweStepsAttributionScorer } from './attribution-scorer.js';
export { type ActiveSuite, activeSuite, isSuperseded } from './cascade.js';
export { binned, healthScores, progressBin } from './health-bins.js';
export { type Health, healthOf, SweStepsHealthScorer } from './health-scorer.js';
export { attributionOptions, healthOptions, ratesOptions, sweStepsOptions, taskOptions } from './options.js';
export { addTrial, emptyCounts, rowOf, settingOfScript, sizeBin } from './rates.js';
export { SweStepsRatesScorer } from './rates-scorer.js';
export { type Outcome, passes } from './run-suite.js';
export { readSuite, type Suite, suiteSchema } from './suite.js';
export { SweStepsScorer } from './swe-steps-scorer.js';
export { SweStepsTaskScorer } from './task-scorer.js';
export { feedbackText } from './verdict.js';

/** A scorer plugin whose scorer is made from its options (and, for judges, the run's gateway). */
function scorerPlugin<Options extends z.ZodType>(
  id: string,
  description: string,
  options: Options,
  make: (options: z.output<Options>, gateway: () => ModelGateway | undefined) => Scorer,
) {
  return definePlugin({
    kind: 'scorer',
    id,
    description,
    options,
    register(bind, resolved) {
      bind(tokens.Scorer).toDynamicValue((ctx) =>
        make(resolved, () => ctx.get(tokens.Gateway, { optional: true })),
      );
    },
  });
}

export const sweSteps = scorerPlugin(
  'swe-steps',
  "SWE-STEPS: runs each PR's gold F2P and P2P tests (cascading over earlier PRs in the global setting) in a sandbox of its own; PR success, per-test outcomes, reflection feedback",
  sweStepsOptions,
  (options) => new SweStepsScorer(options),
);

export const sweStepsTask = scorerPlugin(
  'swe-steps-task',
  'SWE-STEPS task success: every PR of the chain succeeds',
  taskOptions,
  (options) => new SweStepsTaskScorer(options),
);

export const sweStepsRates = scorerPlugin(
  'swe-steps-rates',
  'SWE-STEPS Tables 3 and 8 per condition: PR success, tasks completed, $ per task, pooled and per-repository P2P/F2P, setting inflation, success against chain length and suite size, health bins',
  ratesOptions,
  (options) => new SweStepsRatesScorer(options),
);

export const sweStepsHealth = scorerPlugin(
  'swe-steps-health',
  "SWE-STEPS repository health after each PR: cognitive complexity and technical-debt minutes of the agent's workspace and of the gold trace, Δ from the base commit",
  healthOptions,
  (options) => new SweStepsHealthScorer(options),
);

export const sweStepsAttribution = scorerPlugin(
  'swe-steps-attribution',
  "SWE-STEPS failure attribution: an LLM judge labels each failed PR with SWE-agent's failure categories plus 'Solving Previous Issues'",
  attributionOptions,
  (options, gateway) => new SweStepsAttributionScorer(options, gateway),
);

export default [sweSteps, sweStepsTask, sweStepsRates, sweStepsHealth, sweStepsAttribution];

import { definePlugin, tokens } from '@longhaul/core';
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
export { type ActiveSuite, activeSuite } from './cascade.js';
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

export const sweSteps = definePlugin({
  kind: 'scorer',
  id: 'swe-steps',
  description:
    "SWE-STEPS: runs each PR's gold F2P and P2P tests (cascading over earlier PRs in the global setting) in a sandbox of its own; PR success, per-test outcomes, reflection feedback",
  options: sweStepsOptions,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new SweStepsScorer(options));
  },
});

export const sweStepsTask = definePlugin({
  kind: 'scorer',
  id: 'swe-steps-task',
  description: 'SWE-STEPS task success: every PR of the chain succeeds',
  options: taskOptions,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new SweStepsTaskScorer(options));
  },
});

export const sweStepsRates = definePlugin({
  kind: 'scorer',
  id: 'swe-steps-rates',
  description:
    'SWE-STEPS Tables 3 and 8 per condition: PR success, tasks completed, $ per task, pooled and per-repository P2P/F2P, setting inflation, success against chain length and suite size',
  options: ratesOptions,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new SweStepsRatesScorer(options));
  },
});

export const sweStepsHealth = definePlugin({
  kind: 'scorer',
  id: 'swe-steps-health',
  description:
    "SWE-STEPS repository health after each PR: cognitive complexity and technical-debt minutes of the agent's workspace and of the gold trace, Δ from the base commit",
  options: healthOptions,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new SweStepsHealthScorer(options));
  },
});

export const sweStepsAttribution = definePlugin({
  kind: 'scorer',
  id: 'swe-steps-attribution',
  description:
    "SWE-STEPS failure attribution: an LLM judge labels each failed PR with SWE-agent's failure categories plus 'Solving Previous Issues'",
  options: attributionOptions,
  register(bind, options) {
    bind(tokens.Scorer).toDynamicValue(
      (ctx) => new SweStepsAttributionScorer(options, () => ctx.get(tokens.Gateway, { optional: true })),
    );
  },
});

export default [sweSteps, sweStepsTask, sweStepsRates, sweStepsHealth, sweStepsAttribution];

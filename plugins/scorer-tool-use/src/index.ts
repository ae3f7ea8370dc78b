import { definePlugin, tokens } from '@longhaul/core';
import { passAtKOptions, testReportOptions, toolUseOptions } from './options.js';
import { PassAtKScorer } from './pass-at-k-scorer.js';
import { TestReportScorer } from './test-report-scorer.js';
import { ToolUseScorer } from './tool-use-scorer.js';

export { analyze, bigramKey, filesReadBeforeFirstEdit } from './analytics.js';
export { categoryOf, fileOf } from './categories.js';
export { detectFailureModes, type FailureMode, failureModes } from './failure-modes.js';
export { ideBenchSection, passAtKFigures, toolUseFigures } from './idebench-figures.js';
export { claimedFiles, intentByTurn, mentionedFiles, type TurnIntent } from './intent.js';
export {
  type PassAtKOptions,
  passAtKOptions,
  type TestReportOptions,
  type ToolUseOptions,
  testReportOptions,
  toolUseOptions,
} from './options.js';
export { trialPassRate, trialSuccess } from './outcome.js';
export { PassAtKScorer, transitions } from './pass-at-k-scorer.js';
export { consistency, passAtK, wald, wilson } from './stats.js';
export { isPass, parseTestOutput, type TestStatus } from './test-output.js';
export { TestReportScorer } from './test-report-scorer.js';
export { changedPaths, ToolUseScorer } from './tool-use-scorer.js';
export { parseTrajectory, resultJson } from './trajectory.js';

export default [
  definePlugin({
    kind: 'scorer',
    id: 'tool-use',
    description:
      'IDE-Bench tool-use analytics of a trial: counts, bigrams, read-to-edit, iteration categories, the twelve failure modes, intent vs change',
    options: toolUseOptions,
    register(bind, options) {
      bind(tokens.Scorer).toConstantValue(new ToolUseScorer(options));
    },
  }),
  definePlugin({
    kind: 'scorer',
    id: 'pass-at-k',
    description:
      'IDE-Bench statistics per condition: pass@1 and unbiased pass@k with Wilson intervals, tokens per success, consistency, pooled tool use',
    options: passAtKOptions,
    register(bind, options) {
      bind(tokens.Scorer).toConstantValue(new PassAtKScorer(options));
    },
  }),
  definePlugin({
    kind: 'scorer',
    id: 'test-report',
    description:
      "Per-test outcomes of a step's test runs, read from the runner's output as IDE-Bench's grader does (pytest -rA, jest, go test): passed, total, pass rate",
    options: testReportOptions,
    register(bind, options) {
      bind(tokens.Scorer).toConstantValue(new TestReportScorer(options));
    },
  }),
];

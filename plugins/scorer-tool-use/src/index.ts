import { definePlugin, tokens } from '@longhaul/core';
import { passAtKOptions, toolUseOptions } from './options.js';
import { PassAtKScorer } from './pass-at-k-scorer.js';
import { ToolUseScorer } from './tool-use-scorer.js';

export { analyze, bigramKey, filesReadBeforeFirstEdit } from './analytics.js';
export { categoryOf, fileOf } from './categories.js';
export { detectFailureModes, type FailureMode, failureModes } from './failure-modes.js';
export { claimedFiles, intentByTurn, mentionedFiles, type TurnIntent } from './intent.js';
export { type PassAtKOptions, passAtKOptions, type ToolUseOptions, toolUseOptions } from './options.js';
export { trialPassRate, trialSuccess } from './outcome.js';
export { PassAtKScorer, transitions } from './pass-at-k-scorer.js';
export { consistency, passAtK, wald, wilson } from './stats.js';
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
];

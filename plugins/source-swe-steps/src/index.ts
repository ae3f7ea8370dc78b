import { definePlugin, tokens } from '@longhaul/core';
import { sweStepsOptions } from './options.js';
import { SweStepsSource } from './swe-steps-source.js';

export { buildChains, type ChainInput, type ChainOptions, type FoldPolicy, foldPolicies } from './chains.js';
export { checkAgents, checkExperiment, runCheck } from './check.js';
export { classifierPrompt, classifyPr } from './classify.js';
export * from './dataset.js';
export { type Definition, type DefinitionChanges, definitionsIn, diffDefinitions } from './definitions.js';
export { defaultJobs, type MineOptions, type MineProgress, MineStopped, mine, mineDefaults } from './mine.js';
export { type SweStepsOptions, sweStepsOptions } from './options.js';
export { classifier, defaultPathRules, type FileKind, isTestModule, type PathRules } from './path-rules.js';
export { type DetectedPr, detectPr } from './pr-detect.js';
export { readPrsFile } from './prs-file.js';
export {
  environmentReasons,
  failureReason,
  isEnvironmentReason,
  type Outcome,
  parsePytestMessages,
  parsePytestSummary,
} from './pytest-results.js';
export {
  type CheckResults,
  type CheckTotals,
  checkSettings,
  checkTotals,
  droppedByReason,
  isSound,
  type PrOutcome,
  type PrSupport,
  reasonKind,
  supportOf,
} from './report.js';
export { renderPrd, renderRequest, summarySentence } from './request.js';
export { type Suite, SweStepsSource, validatedIn } from './swe-steps-source.js';
export { classifyTests, defaultImage, runContainer } from './validate.js';
export { MineInputError, windowBounds } from './window.js';

export default definePlugin({
  kind: 'source',
  id: 'swe-steps',
  description: 'SWE-STEPS: chains of pull requests mined from a git history by `longhaul swe-steps mine`',
  options: sweStepsOptions,
  register(bind, options) {
    bind(tokens.Source).toConstantValue(new SweStepsSource(options));
  },
});

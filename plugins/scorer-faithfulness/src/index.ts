import { definePlugin, tokens } from '@longhaul/core';
import { FaithfulnessScorer } from './faithfulness-scorer.js';
import { faithfulnessOptions, slumpOptions } from './options.js';
import { SlumpReporter, slumpReporterOptions } from './slump-reporter.js';
import { SlumpScorer } from './slump-scorer.js';

export {
  type Agreement,
  agreement,
  type LabelTable,
  parseLabels,
  quadraticKappa,
  spearman,
} from './calibration.js';
export {
  analyzeDir,
  type DirAnalysis,
  type ExportedSymbol,
  entryFilesOf,
  isTestFile,
} from './dir-analysis.js';
export {
  type ComponentExposure,
  type ExposureAudit,
  exposureAudit,
  exposureSystemPrompt,
  llmExposureLevels,
} from './exposure.js';
export { FaithfulnessScorer } from './faithfulness-scorer.js';
export * from './formulas.js';
export { gatewayModel } from './gateway-model.js';
export { judgeComponent, judgePrompt, judgeSystemPrompt, type Verdict, verdictSchema } from './judge.js';
export { type FaithfulnessOptions, faithfulnessOptions, type SlumpOptions, slumpOptions } from './options.js';
export { RepoView } from './repo-view.js';
export { type RubricScore, rubric, rubricLabel } from './rubric.js';
export { SlumpReporter, type SlumpReporterOptions, slumpReporterOptions } from './slump-reporter.js';
export { finalScore, SlumpScorer } from './slump-scorer.js';

export const faithfulness = definePlugin({
  kind: 'scorer',
  id: 'faithfulness',
  description:
    'SLUMP component faithfulness: an LLM judge scores each component 0–4 from the final repository (MCF, fully faithful, severe failures), plus DIR and IF50',
  options: faithfulnessOptions,
  register(bind, options) {
    bind(tokens.Scorer).toDynamicValue(
      (ctx) => new FaithfulnessScorer(options, () => ctx.get(tokens.Gateway, { optional: true })),
    );
  },
});

export const slump = definePlugin({
  kind: 'scorer',
  id: 'slump',
  description:
    'SLUMP across conditions: loss (single-shot − emergent), gap recovery of memories, wins/ties/losses per task',
  options: slumpOptions,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new SlumpScorer(options));
  },
});

export const slumpReport = definePlugin({
  kind: 'reporter',
  id: 'slump',
  description:
    "Prints the 'slump' scorer's table: each metric per condition, its loss and gap recovery, W/T/L",
  options: slumpReporterOptions,
  register(bind, options) {
    bind(tokens.Reporter).toConstantValue(new SlumpReporter(options));
  },
});

export default [faithfulness, slump, slumpReport];

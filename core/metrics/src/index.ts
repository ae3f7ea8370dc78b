export { type Churn, churnBetween } from './churn.js';
export {
  type DiscoveryOptions,
  defaultExcludes,
  isGenerated,
  readSourceTree,
  type SourceFile,
  SourceFilter,
  selectSources,
  sourceCandidates,
} from './discovery.js';
export { guardComparisons } from './equality-guard.js';
export { type FileAnalysis, massOf } from './file-analysis.js';
export {
  type HistoryCommit,
  type HistoryOptions,
  measureHistory,
  sourcesAtCommit,
  sourceTouchingCommits,
} from './git.js';
export { contentHash, optionsKey, type PreviousResults } from './incremental.js';
export { languageById, languageOfPath, languages, registerGrammars } from './languages/registry.js';
export type { LanguageId, LanguageSpec, RuleFamily } from './languages/types.js';
export type { Matcher } from './matcher.js';
export {
  type CcVariant,
  defaultOptions,
  type MetricsOptions,
  resolveOptions,
  type SizeTerm,
} from './options.js';
export { type Phase, phases, progressOf, progressPhases, spread } from './progress.js';
export {
  analyzeProject,
  analyzeSource,
  type CloneInstance,
  matcherFor,
  type ProjectReport,
  type QualitySummary,
} from './project.js';
export type { CallableMetrics, FileMetrics, RuleHit } from './results.js';
export { rulePack } from './rules/pack.js';
export { type RuleCategory, ruleCategories, type SlopRule } from './rules/types.js';

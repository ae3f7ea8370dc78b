export * from './config-error.js';
export * from './experiment-plugins.js';
export * from './experiment-schema.js';
export * from './harness-tools.js';
export * from './json-schema.js';
export * from './load-experiment.js';
export * from './matrix.js';
export {
  type ModelOptionMeta,
  modelOption,
  modelOptionKeys,
  modelOptions,
  modelReferences,
} from './model-option.js';
export { type PathIssue, schemaIssues } from './schema-issues.js';
export { scoreOption } from './score-option.js';
export * from './suggest.js';
export { matchesTaskPattern } from './task-filter.js';
export * from './timer-limit.js';
export * from './yaml-file.js';

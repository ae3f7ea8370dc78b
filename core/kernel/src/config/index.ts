export * from './config-error.js';
export * from './experiment-schema.js';
export * from './json-schema.js';
export * from './load-experiment.js';
export * from './matrix.js';
export * from './suggest.js';
export { matchesTaskPattern } from './task-filter.js';
export * from './timer-limit.js';
export * from './yaml-file.js';

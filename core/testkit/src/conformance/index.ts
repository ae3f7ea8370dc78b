export * from './checks.js';
export * from './environment.js';
export * from './harness.js';
export * from './instantiate.js';
export * from './memory.js';
export * from './sample-task.js';
export * from './script.js';

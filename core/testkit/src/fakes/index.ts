export * from './command.js';
export * from './environment.js';
export * from './harness.js';
export * from './plugin.js';
export * from './reporter.js';
export * from './say-parser.js';
export * from './snapshot-store.js';

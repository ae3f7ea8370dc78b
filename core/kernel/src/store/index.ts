export * from './atomic.js';
export * from './diff.js';
export * from './jsonl.js';
export * from './lock.js';
export * from './run-store.js';
export * from './snapshot-store.js';
export * from './workspace-files.js';

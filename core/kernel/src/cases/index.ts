export * from './case-cache.js';
export * from './case-workspace.js';
export * from './cli-case.js';
export * from './http-case.js';
export * from './pytest-suite.js';
export * from './read-case.js';
export * from './yaml-schema.js';

export * from './cli-case.js';
export * from './zod-issues.js';

export * from './cli-case.js';
export * from './yaml-schema.js';

export * from './bootstrap.js';
export * from './step-outcome.js';

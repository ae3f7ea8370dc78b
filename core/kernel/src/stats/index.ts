export * from './bootstrap.js';
export * from './step-outcome.js';
export * from './tool-calls.js';

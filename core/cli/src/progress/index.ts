export * from './drive-run.js';
export * from './progress-state.js';
export * from './views.js';

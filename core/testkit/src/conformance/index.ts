export * from './checks.js';
export * from './environment.js';

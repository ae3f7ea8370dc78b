export * from './atif-types.js';
export * from './to-atif.js';
export * from './trial-atif.js';

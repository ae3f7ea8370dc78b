export * from './atif-types.js';
export * from './to-atif.js';

export * from './excludes.js';

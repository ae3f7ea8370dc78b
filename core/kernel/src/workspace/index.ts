export * from './excludes.js';
export * from './file-size.js';

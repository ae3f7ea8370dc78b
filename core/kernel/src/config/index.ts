export * from './config-error.js';
export * from './yaml-file.js';

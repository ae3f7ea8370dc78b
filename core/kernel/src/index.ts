export * from './cases/index.js';
export * from './config/index.js';
export * from './contracts/index.js';

export * from './agent-cli/index.js';
export * from './atif/index.js';
export * from './cases/index.js';
export * from './config/index.js';
export * from './contracts/index.js';
export * from './plugins/index.js';
export * from './runner/index.js';
export * from './store/index.js';

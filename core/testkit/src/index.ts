export * from './conformance/index.js';
export * from './fakes/index.js';
export * from './judge-environments.js';
export * from './test-folder.js';

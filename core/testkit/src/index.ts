export * from './conformance/index.js';
export * from './fakes/index.js';

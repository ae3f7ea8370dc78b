export * from './agent-command.js';
export * from './agent-harness.js';
export * from './agent-home.js';
export * from './agent-setup.js';
export * from './agent-turn.js';
export * from './json-line.js';
export * from './line-buffer.js';
export * from './process-sweep.js';

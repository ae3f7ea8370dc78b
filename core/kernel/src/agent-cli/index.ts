export * from './agent-command.js';
export * from './agent-home.js';
export * from './agent-turn.js';
export * from './line-buffer.js';
export * from './process-sweep.js';

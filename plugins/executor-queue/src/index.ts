import { definePlugin, tokens } from '@longhaul/core';
import { QueueExecutor } from './coordinator.js';
import { queueOptions } from './options.js';

export { QueueExecutor } from './coordinator.js';
export { jobIdOf, type QueueOptions, queueOptions } from './options.js';
export { runWorker, type WorkerOptions } from './worker.js';

export default definePlugin({
  kind: 'executor',
  id: 'queue',
  description:
    'Trials as BullMQ jobs on Redis, run by `longhaul worker` processes on other machines into a shared run store',
  options: queueOptions,
  register(bind, options) {
    bind(tokens.Executor).toConstantValue(new QueueExecutor(options));
  },
});

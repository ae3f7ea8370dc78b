import { definePlugin, tokens } from '@longhaul/core';
import { LonghaulSource } from './longhaul-source.js';
import { optionsSchema } from './options.js';

export { LonghaulSource } from './longhaul-source.js';
export { optionsSchema, type SourceOptions } from './options.js';
export { hashTask } from './task-hash.js';

export default definePlugin({
  kind: 'source',
  id: 'longhaul',
  description: "Tasks in longhaul's native format (problems/<task>/task.yaml, steps/<nn>-<slug>/)",
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Source).toConstantValue(new LonghaulSource(options));
  },
});

import { definePlugin, tokens } from '@longhaul/core';
import { optionsSchema } from './options.js';
import { ScbenchSource } from './scbench-source.js';
import { testCodeNotes } from './test-code.js';

export { entryFileOf, problemRequirements } from './load-problem.js';
export { optionsSchema, type ScbenchOptions } from './options.js';
export { ScbenchSource } from './scbench-source.js';

export default definePlugin({
  kind: 'source',
  id: 'scbench',
  description:
    "SlopCodeBench problem directories, unchanged: config.yaml, checkpoint_N.md specs, tests/ run by pytest (scored by 'tests')",
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Source).toConstantValue(new ScbenchSource(options));
  },
  warnings: (_options, use) => use.tasks.filter((task) => task.source === 'scbench').flatMap(testCodeNotes),
});

import { definePlugin, tokens } from '@longhaul/core';
import { IdebenchSource } from './idebench-source.js';
import { idebenchOptions } from './options.js';

export { parseDescription, type TaskDescription } from './description.js';
export { IdebenchSource } from './idebench-source.js';
export { type IdebenchOptions, idebenchOptions } from './options.js';

export default definePlugin({
  kind: 'source',
  id: 'idebench',
  description:
    "Tasks in IDE-Bench's layout (run_tests.sh, tasks/<id>/task_description.txt, task_diff.txt, task_tests.*)",
  options: idebenchOptions,
  register(bind, options) {
    bind(tokens.Source).toConstantValue(new IdebenchSource(options));
  },
});

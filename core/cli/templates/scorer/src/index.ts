import { definePlugin, tokens } from '@longhaul/core';
import { z } from 'zod';
import { SizeScorer } from './size-scorer.js';

export { SizeScorer } from './size-scorer.js';

/** The scorer's options, as an experiment gives them (`scorers: [{id, options}]`). */
export const options = z
  .object({
    extensions: z
      .array(z.string().regex(/^\.\w+$/))
      .optional()
      .describe('Count only files with these extensions, e.g. [".py", ".sh"] (default: every file)'),
  })
  .strict();

export type Options = z.output<typeof options>;

export default definePlugin({
  kind: 'scorer',
  id: '{{id}}',
  description: 'Size of the workspace after each step: files, non-blank lines, and the lines the step added',
  options,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new SizeScorer(options));
  },
});

import { definePlugin, tokens } from '@longhaul/core';
import { z } from 'zod';
import { MarkdownSource } from './markdown-source.js';

export { MarkdownSource } from './markdown-source.js';

/** The source's options, as an experiment gives them (`source: {id, options}`). */
export const options = z
  .object({
    path: z
      .string()
      .min(1)
      .default('tasks')
      .describe('Folder of tasks, one sub-folder each, relative to the experiment file'),
    entrypoint: z
      .string()
      .min(1)
      .default('sh main.sh')
      .describe("How the agent's program is run; hidden cases append their argv to it"),
    language: z.string().min(1).default('shell').describe('The language the tasks are written in'),
    caseSeconds: z.number().positive().default(10).describe('Time limit of one hidden case, in seconds'),
  })
  .strict();

export type Options = z.output<typeof options>;

export default definePlugin({
  kind: 'source',
  id: '{{id}}',
  description:
    'Tasks as folders of Markdown steps (NN-name.md), each with an optional reference solution and hidden cases',
  options,
  register(bind, options) {
    bind(tokens.Source).toConstantValue(new MarkdownSource(options));
  },
});

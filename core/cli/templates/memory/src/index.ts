import { definePlugin, tokens } from '@longhaul/core';
import { z } from 'zod';
import { HandoverMemory } from './handover-memory.js';

export { HandoverMemory } from './handover-memory.js';

/** The memory's options, as an experiment gives them (`memory: {id, options}`). */
export const options = z
  .object({
    heading: z
      .string()
      .min(1)
      .default('Where the previous session left off:')
      .describe('Text put before the previous session’s last message at the start of a new session'),
    maxChars: z
      .number()
      .int()
      .positive()
      .default(4000)
      .describe('Keep at most this many characters of the message (its end, where agents summarize)'),
  })
  .strict();

export type Options = z.output<typeof options>;

export default definePlugin({
  kind: 'memory',
  id: '{{id}}',
  description: "Hands the agent's last message of a session to the next fresh session, before its prompt",
  options,
  register(bind, options) {
    bind(tokens.Memory).toConstantValue(new HandoverMemory(options));
  },
});

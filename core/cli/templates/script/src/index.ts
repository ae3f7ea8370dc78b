import { definePlugin, tokens } from '@longhaul/core';
import { z } from 'zod';
import { StepByStepScript } from './step-by-step-script.js';

export { StepByStepScript } from './step-by-step-script.js';

/** The script's options, as an experiment gives them (`script: {id, options}`). */
export const options = z
  .object({
    session: z
      .enum(['continue', 'fresh'])
      .default('continue')
      .describe('continue: every step in one session; fresh: a new session for each step'),
    feedbackCycles: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .describe('Extra turns a step may take when its scores show failures (each gets the failures)'),
  })
  .strict();

export type Options = z.output<typeof options>;

export default definePlugin({
  kind: 'script',
  id: '{{id}}',
  description:
    'One turn per step, each prompt saying which step of how many it is; the workspace carries over',
  options,
  register(bind, options) {
    bind(tokens.Script).toConstantValue(new StepByStepScript(options));
  },
});

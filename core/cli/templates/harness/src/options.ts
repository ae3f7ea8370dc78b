import { z } from 'zod';

/** The harness's options, as an experiment gives them (`harness: {id, options}`). */
export const options = z
  .object({
    command: z
      .array(z.string())
      .min(1)
      .describe(
        'The agent: a program and its arguments, run in the workspace once per turn with the prompt on its standard input',
      ),
    model: z
      .string()
      .optional()
      .describe(
        "The model (a name under the experiment's models:) the agent asks the run's gateway for; its address, token and name reach the command as LONGHAUL_BASE_URL, LONGHAUL_API_KEY and LONGHAUL_MODEL",
      ),
    timeoutSeconds: z
      .number()
      .positive()
      .optional()
      .describe("Ends the command after this many seconds (default: the experiment's limits.turnSeconds)"),
  })
  .strict();

export type Options = z.output<typeof options>;

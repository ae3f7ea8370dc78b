import { z } from 'zod';

export const optionsSchema = z.strictObject({
  path: z
    .string()
    .default('problems')
    .describe("A directory of scripts (every sub-directory with a script.yaml) or one script's directory"),
  tasks: z.array(z.string()).optional().describe('Only these script ids'),
});
export type SlumpSourceOptions = z.output<typeof optionsSchema>;

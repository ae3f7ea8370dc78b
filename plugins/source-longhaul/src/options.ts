import { z } from 'zod';

export const optionsSchema = z.strictObject({
  path: z
    .string()
    .default('problems')
    .describe("A problems directory, or a single task directory, relative to the experiment's directory"),
  tasks: z.array(z.string()).optional().describe('Only these task ids (exact ids or globs like "word*")'),
});
export type SourceOptions = z.output<typeof optionsSchema>;

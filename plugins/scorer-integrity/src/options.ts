import { z } from 'zod';

export const optionsSchema = z
  .object({
    ignore: z
      .array(z.string())
      .default([])
      .describe(
        'Paths (globs, e.g. "tests/fixtures/**") whose changes are no signal: a benchmark whose agents are asked to edit such files',
      ),
  })
  .strict();

export type IntegrityOptions = z.output<typeof optionsSchema>;

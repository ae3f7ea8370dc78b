import { z } from 'zod';

export const slopGuardOptions = z
  .object({
    callables: z.int().min(0).default(3).describe('Highest-mass callables named in the brief'),
    clones: z.int().min(0).default(3).describe('Largest clone groups named in the brief'),
    erosionRise: z
      .number()
      .min(0)
      .default(0.02)
      .describe('A rise of the erosion score by more than this since the previous turn is reported'),
    placement: z.enum(['prefix', 'suffix']).default('suffix').describe('Brief before or after the prompt'),
    exclude: z.array(z.string()).default([]).describe('Extra globs of files the metrics leave out'),
  })
  .strict();
export type SlopGuardOptions = z.output<typeof slopGuardOptions>;

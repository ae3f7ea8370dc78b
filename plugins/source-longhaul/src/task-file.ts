import { timerMs } from '@longhaul/core';
import { z } from 'zod';

const idPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const taskFileSchema = z.strictObject({
  id: z.string().regex(idPattern, 'letters, digits, ".", "_" and "-" only'),
  title: z.string().min(1),
  description: z.string().optional(),
  entrypoint: z.string().min(1).describe('How the solution is run, e.g. "python3 main.py"'),
  language: z.string().min(1),
  environment: z
    .strictObject({
      image: z.string().optional(),
      dockerfile: z.string().optional().describe('Relative to the task directory'),
      setup: z.array(z.string()).optional(),
      toolchains: z.array(z.string()).optional(),
      network: z.enum(['none', 'open']).optional(),
    })
    .default({}),
  timeouts: z.strictObject({ caseMs: timerMs().default(10_000) }).default({ caseMs: 10_000 }),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type TaskFile = z.output<typeof taskFileSchema>;

export const stepFileSchema = z.strictObject({
  title: z.string().optional(),
  phase: z.string().optional(),
  discloses: z
    .array(z.strictObject({ component: z.string(), explicitness: z.number().int().min(0).max(4) }))
    .optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type StepFile = z.output<typeof stepFileSchema>;

export const componentsFileSchema = z.array(
  z.strictObject({ id: z.string().min(1), description: z.string().min(1), location: z.string().optional() }),
);

import { timerSeconds } from '@longhaul/core';
import { z } from 'zod';

const groups = {
  CORE: 'core',
  FUNCTIONALITY: 'functionality',
  ERROR: 'error',
  REGRESSION: 'regression',
} as const;

/** SlopCodeBench's problem config.yaml; keys this source does not use are allowed and kept out. */
export const configFileSchema = z.looseObject({
  version: z.number().optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  category: z.string().optional(),
  difficulty: z.string().optional(),
  author: z.string().optional(),
  entry_file: z
    .string()
    .min(1)
    .describe('The file the solution is run from (".py" added when it has no extension)'),
  timeout: timerSeconds().default(10).describe('Seconds a single test may take'),
  tags: z.array(z.string()).default([]),
  static_assets: z
    .record(z.string(), z.strictObject({ path: z.string().min(1) }))
    .default({})
    .describe('Files or directories of the problem copied into the workspace at the same relative path'),
  test_dependencies: z
    .array(z.string())
    .default([])
    .describe('Python packages the tests import (pip names); the interpreter must have them'),
  requires_python: z
    .string()
    .regex(/^\s*(>=)?\s*\d+(\.\d+)*\s*$/, 'a version like "3.12" or ">=3.12"')
    .optional()
    .describe(
      "Lowest Python the solution and tests need (longhaul's key: upstream states it per environment, python3.12)",
    ),
  markers: z
    .record(
      z.string(),
      z.looseObject({
        description: z.string().optional(),
        group: z.enum(Object.keys(groups) as [keyof typeof groups, ...(keyof typeof groups)[]]),
      }),
    )
    .default({}),
  checkpoints: z.record(
    z.string().regex(/^[A-Za-z0-9_.-]+$/, 'a checkpoint name of letters, digits, "_", "." and "-"'),
    z.looseObject({
      version: z.number().optional(),
      order: z.number().int(),
      state: z.string().optional(),
      include_prior_tests: z.boolean().default(true),
      timeout: timerSeconds()
        .optional()
        .describe("Seconds a single test may take here (default: the problem's)"),
    }),
  ),
});
export type ConfigFile = z.output<typeof configFileSchema>;

export function markerGroup(group: keyof typeof groups): (typeof groups)[keyof typeof groups] {
  return groups[group];
}

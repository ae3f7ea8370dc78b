import { modelOption } from '@longhaul/core';
import { z } from 'zod';

export const sweStepsOptions = z.strictObject({
  cascade: z
    .enum(['auto', 'always', 'never'])
    .default('auto')
    .describe(
      "Run every earlier PR's F2P and P2P with the PR's own (the global setting's cascading suite). auto: when the trial's script carries the agent's workspace from PR to PR (conversation, checkpoints)",
    ),
  command: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      "The test command instead of suite.json's (e.g. [/usr/bin/python3, -m, pytest]); test files are appended",
    ),
  args: z
    .array(z.string())
    .default(['--tb=short', '-q'])
    .describe('More pytest arguments, after the files and the options the scorer needs'),
  timeoutSeconds: z.number().positive().default(900).describe('Wall clock of one test run'),
  feedbackChars: z
    .int()
    .min(0)
    .default(4000)
    .describe("Characters of the run's output (its tail) in the feedback of a reflection cycle"),
  feedbackIds: z.int().min(0).default(30).describe('Failing test ids named in the feedback'),
});
export type SweStepsOptions = z.output<typeof sweStepsOptions>;

export const taskOptions = z.strictObject({
  scorer: z.string().default('swe-steps').describe('Label of the swe-steps step scorer'),
});
export type TaskOptions = z.output<typeof taskOptions>;

export const ratesOptions = z.strictObject({
  scorer: z.string().default('swe-steps').describe('Label of the swe-steps step scorer'),
  suiteBins: z
    .array(z.int().positive())
    .min(1)
    .default([10, 50, 100, 500])
    .describe('Upper edges of the active-suite-size bins (tests run to judge a PR); the last bin is open'),
  health: z
    .string()
    .default('swe-steps-health')
    .describe('Label of the swe-steps-health step scorer; its Δ are binned when the trials have them'),
  healthMinPrs: z
    .int()
    .min(1)
    .default(6)
    .describe('Chains shorter than this are left out of the health bins (the paper: more than 5 PRs)'),
  healthBins: z.int().min(1).default(5).describe('Progress bins of the health curves'),
});
export type RatesOptions = z.output<typeof ratesOptions>;

export const healthOptions = z.strictObject({
  exclude: z
    .array(z.string())
    .default(['tests/', 'test/', 'testing/', 'test_*.py', '*_test.py', 'conftest.py'])
    .describe(
      "Paths left out of the measure (gitignore syntax), beyond @longhaul/metrics's defaults. Tests by default: the agent's workspace lacks the hidden test files the gold trace has",
    ),
});
export type HealthOptions = z.output<typeof healthOptions>;

export const attributionOptions = z.strictObject({
  model: modelOption("The judge: a model of the experiment's models: (the paper used Gemini 3 Pro)").default(
    'judge',
  ),
  scorer: z.string().default('swe-steps').describe('Label of the swe-steps step scorer'),
  traceChars: z
    .int()
    .positive()
    .default(12_000)
    .describe("Characters of the end of a failed PR's trace the judge reads"),
});
export type AttributionOptions = z.output<typeof attributionOptions>;

import { modelOption } from '@longhaul/core';
import { z } from 'zod';

export const faithfulnessOptions = z
  .object({
    model: modelOption(
      "The judge: a model name from the experiment's models: (served through the gateway)",
    ).default('judge'),
    maxToolCalls: z
      .int()
      .min(0)
      .max(64)
      .default(8)
      .describe('Repository tool calls (list, read, grep) the judge may make per component (paper: 8)'),
    steps: z
      .enum(['last', 'all'])
      .default('last')
      .describe("Judge the final repository only (the paper's endpoint), or after every scored step"),
    severeThreshold: z
      .int()
      .min(0)
      .max(3)
      .default(1)
      .describe('Scores at or below this count as severe failures (default 1: Absent or Wrong)'),
    exclude: z
      .array(z.string())
      .default(['NOTES.md', 'CLAUDE.md', 'AGENTS.md', '.projectguard/**', '.claude/**'])
      .describe('Globs of workspace files the judge and DIR never see (memory files, agent settings)'),
    concurrency: z.int().min(1).default(4).describe('Components judged at once'),
    temperature: z.number().min(0).max(2).default(0).describe('Sampling temperature of the judge'),
  })
  .strict();
export type FaithfulnessOptions = z.output<typeof faithfulnessOptions>;

export const slumpOptions = z
  .object({
    scorer: z
      .string()
      .default('faithfulness')
      .describe('Label of the step scorer whose mcf / dir / if50 scores are compared'),
    metrics: z
      .array(z.string())
      .default(['mcf', 'dir', 'if50'])
      .describe('Metrics of that scorer to report the loss and gap recovery of'),
    emergentScript: z
      .string()
      .default('conversation')
      .describe('Script label of the emergent-specification condition'),
    controlScript: z
      .string()
      .default('single-shot')
      .describe('Script label of the single-shot specification control'),
    baselineMemory: z
      .string()
      .default('none')
      .describe('Memory label of the baseline; other memories under the emergent script are treatments'),
    tieTolerance: z
      .number()
      .min(0)
      .default(0)
      .describe('Per-task differences at most this large count as ties'),
  })
  .strict();
export type SlumpOptions = z.output<typeof slumpOptions>;

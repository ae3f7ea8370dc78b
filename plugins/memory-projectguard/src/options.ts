import { modelOption } from '@longhaul/core';
import { z } from 'zod';

export const projectGuardOptions = z
  .object({
    extractor: modelOption(
      "Model (under the experiment's models:) that extracts committed facts after each turn",
    ).default('extractor'),
    forecaster: modelOption(
      "Model (under the experiment's models:) that writes the task brief and may ask for a restart before each turn",
    ).default('forecaster'),
    injection: z
      .enum(['prefix', 'claude-md', 'agents-md', 'hooks'])
      .default('prefix')
      .describe(
        'How the brief reaches the agent: before the prompt, in CLAUDE.md, in AGENTS.md, or by a Claude Code UserPromptSubmit hook',
      ),
    contextWindow: z.int().min(1000).default(200_000).describe("The agent's context window, tokens"),
    restartBelow: z
      .number()
      .min(0)
      .max(1)
      .default(0.2)
      .describe('Restart proactively when the estimated free share of the context window falls below this'),
    restarts: z.boolean().default(true).describe('Allow proactive restarts at all'),
    briefRecords: z.int().min(1).default(8).describe('Commitments at most in a task brief'),
    maxRequestsInForecast: z
      .int()
      .min(1)
      .default(60)
      .describe('Prior user requests the forecaster sees (the most recent ones)'),
  })
  .strict();
export type ProjectGuardOptions = z.output<typeof projectGuardOptions>;

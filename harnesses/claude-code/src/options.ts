import { modelOption } from '@longhaul/core';
import { z } from 'zod';
import { pinnedVersion } from './binary.js';

/** Variables the harness sets itself: an experiment may not override where traffic goes or its key. */
export const reservedEnv = [
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CONFIG_DIR',
];

export const claudeCodeOptions = z
  .object({
    version: z
      .string()
      .default(pinnedVersion)
      .describe(
        `Claude Code version the experiment expects; it must equal the installed one (${pinnedVersion}), which is recorded in lock.json`,
      ),
    executable: z
      .string()
      .optional()
      .describe(
        'Path of the claude binary as the sandbox sees it (default: the native binary installed with this package)',
      ),
    model: modelOption(
      "The gateway model the agent asks for, passed to --model and as its small/subagent model; the trial's token allows this model only (default: the gateway's default model)",
    ).optional(),
    maxTurns: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Agentic turns (model calls) per turn, passed as --max-turns; reaching it ends the turn as failed',
      ),
    thinkingTokens: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('Extended-thinking budget in tokens (MAX_THINKING_TOKENS); 0 turns thinking off'),
    allowedTools: z
      .array(z.string())
      .optional()
      .describe('Tools the agent may use without asking, e.g. ["Bash(git:*)", "Edit"] (--allowedTools)'),
    disallowedTools: z
      .array(z.string())
      .optional()
      .describe('Tools removed from the agent, e.g. ["WebFetch", "WebSearch"] (--disallowedTools)'),
    appendSystemPrompt: z
      .string()
      .optional()
      .describe('Text appended to Claude Code’s system prompt (--append-system-prompt)'),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe(
        'Extra environment variables for the claude process, e.g. CLAUDE_CODE_MAX_OUTPUT_TOKENS; never secrets',
      )
      .refine((env) => !reservedEnv.some((name) => name in env), {
        message: `env may not set ${reservedEnv.join(', ')}: the harness points Claude Code at the run's gateway`,
      }),
  })
  .strict();

export type ClaudeCodeOptions = z.output<typeof claudeCodeOptions>;

import { modelOption } from '@longhaul/core';
import { z } from 'zod';
import { pinnedVersion } from './binary.js';

/** Variables the harness sets itself: an experiment may not override them. */
export const reservedEnv = ['CODEX_HOME', 'LONGHAUL_GATEWAY_KEY', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'];

const tomlValue = z.union([z.string(), z.number(), z.boolean()]);

export const codexOptions = z
  .object({
    version: z
      .string()
      .default(pinnedVersion)
      .describe(
        `Codex version the experiment expects; it must equal the installed one (${pinnedVersion}), which is recorded in lock.json`,
      ),
    executable: z
      .string()
      .optional()
      .describe(
        'Path of the codex binary as the sandbox sees it (default: the native binary installed with this package)',
      ),
    model: modelOption(
      "The gateway model the agent asks for, passed to -m; the trial's token allows this model only (default: the gateway's default model)",
    ).optional(),
    reasoningEffort: z
      .enum(['minimal', 'low', 'medium', 'high', 'xhigh'])
      .optional()
      .describe('Reasoning effort the agent asks the model for (model_reasoning_effort)'),
    sandboxMode: z
      .enum(['danger-full-access', 'workspace-write'])
      .default('danger-full-access')
      .describe(
        "Codex's own command sandbox. The default leaves confinement to longhaul's sandbox (Codex's needs kernel features containers often lack); workspace-write adds Codex's",
      ),
    config: z
      .record(z.string(), tomlValue)
      .default({})
      .describe('Extra Codex settings as -c key=value overrides, e.g. {model_verbosity: low}'),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra environment variables for the codex process; never secrets')
      .refine((env) => !reservedEnv.some((name) => name in env), {
        message: `env may not set ${reservedEnv.join(', ')}: the harness points Codex at the run's gateway`,
      }),
  })
  .strict();

export type CodexOptions = z.output<typeof codexOptions>;

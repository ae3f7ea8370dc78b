import { z } from 'zod';

const upstream = {
  provider: z
    .enum(['anthropic', 'openai'])
    .describe(
      'Which API the provider speaks: anthropic (Messages) or openai (Responses and Chat Completions)',
    ),
  model: z.string().min(1).describe("The provider's model id, e.g. claude-sonnet-4-5"),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .describe('Name of the host environment variable holding the provider key (read on the host only)'),
  baseUrl: z
    .url()
    .optional()
    .describe('Provider base URL without /v1 (default: https://api.anthropic.com or https://api.openai.com)'),
  retries: z.number().int().min(0).max(20).default(4).describe('Retries on 429, 5xx and connection errors'),
  backoffMs: z
    .number()
    .min(0)
    .default(1000)
    .describe('First retry delay; doubles on each retry (plus jitter)'),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .default(600_000)
    .describe('Per-attempt timeout of an upstream request'),
};

export const passthroughModelSchema = z
  .strictObject({ backend: z.literal('passthrough'), ...upstream })
  .describe('Forwards requests to the real provider');

export const recordModelSchema = z
  .strictObject({
    backend: z.literal('record'),
    wraps: z
      .string()
      .min(1)
      .optional()
      .describe('Record another model of models: (a scripted one, say) instead of a provider'),
    ...upstream,
    provider: upstream.provider.optional(),
    model: upstream.model.optional(),
    apiKeyEnv: upstream.apiKeyEnv.optional(),
  })
  .superRefine((config, context) => {
    const fields = ['provider', 'model', 'apiKeyEnv'] as const;
    for (const field of fields) {
      if (config.wraps !== undefined && config[field] !== undefined)
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `'${field}' and 'wraps' exclude each other`,
        });
      if (config.wraps === undefined && config[field] === undefined)
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `'${field}' is required (or 'wraps' with a model name)`,
        });
    }
  })
  .describe(
    "Like passthrough (or another model, with 'wraps'), and appends every exchange to the run's recording",
  );

export const replayModelSchema = z
  .strictObject({
    backend: z.literal('replay'),
    from: z
      .string()
      .min(1)
      .describe('A run directory (or a recording.jsonl file) recorded with the record backend'),
    ignore: z
      .array(z.string())
      .default([])
      .describe(
        'Extra regular expressions whose matches are blanked before requests are matched to the recording',
      ),
  })
  .describe('Serves a recording offline; a request with no recorded answer is an error');

export const toolCallSchema = z.strictObject({
  name: z.string().min(1).describe('Tool name, as the calling agent offers it'),
  input: z.unknown().describe('Tool arguments (an object; a string for free-form tools)'),
  id: z.string().optional().describe('Call id; generated when absent'),
  invalid: z
    .boolean()
    .optional()
    .describe(
      "Arguments wrong on purpose (a test of how the agent takes a refused call): validate does not check this call against the harness's tools",
    ),
});

export const scriptedReplySchema = z
  .strictObject({
    when: z
      .string()
      .optional()
      .describe('Serve this reply whenever the last user message or tool result contains this text'),
    text: z.string().optional().describe('Assistant text'),
    toolCalls: z.array(toolCallSchema).optional().describe('Tool calls, in order'),
    usage: z
      .strictObject({
        inputTokens: z.number().int().min(0).default(0),
        outputTokens: z.number().int().min(0).default(0),
        cacheReadTokens: z.number().int().min(0).default(0),
        cacheWriteTokens: z.number().int().min(0).default(0),
      })
      .optional()
      .describe('Token counts to report (estimated from text lengths when absent)'),
  })
  .refine((reply) => reply.text !== undefined || (reply.toolCalls?.length ?? 0) > 0, {
    message: 'a reply needs text or toolCalls',
  });

export const scriptedModelSchema = z
  .strictObject({
    backend: z.literal('scripted'),
    file: z
      .string()
      .optional()
      .describe('YAML file with a list of replies (relative to the experiment file)'),
    replies: z.array(scriptedReplySchema).optional().describe('Replies given inline instead of in a file'),
  })
  .refine((model) => (model.file === undefined) !== (model.replies === undefined), {
    message: "give either 'file' or 'replies'",
  })
  .describe('A model defined by a list of replies, for tests');

export const oracleModelSchema = z
  .strictObject({
    backend: z.literal('oracle'),
    listing: z
      .boolean()
      .default(true)
      .describe('First list the workspace with a shell tool (with hashes) to find changed and stale files'),
  })
  .describe(
    "Drives the calling agent to write the current turn's reference solution with the agent's own tools",
  );

export const modelSchema = z.discriminatedUnion('backend', [
  passthroughModelSchema,
  recordModelSchema,
  replayModelSchema,
  scriptedModelSchema,
  oracleModelSchema,
]);

/** The experiment's `models:`: model names (as agents ask for them) mapped to backends. */
export const modelsConfigSchema = z
  .record(z.string().min(1), modelSchema)
  .describe('Model names, as agents ask for them, mapped to gateway backends');

export const priceSchema = z.strictObject({
  input: z.number().min(0).describe('USD per million input tokens'),
  output: z.number().min(0).describe('USD per million output tokens'),
  cacheRead: z.number().min(0).optional().describe('USD per million cache-read tokens (default: input)'),
  cacheWrite: z.number().min(0).optional().describe('USD per million cache-write tokens (default: input)'),
});

/** The experiment's `prices:`, keyed by model name or provider model id; merged over the built-in table. */
export const pricesConfigSchema = z
  .record(z.string().min(1), priceSchema)
  .describe('Prices per model name or provider model id, in USD per million tokens');

export const gatewayConfigSchema = z.strictObject({
  models: modelsConfigSchema,
  prices: pricesConfigSchema.optional(),
});

export type ModelConfig = z.infer<typeof modelSchema>;
export type UpstreamModelConfig = z.infer<typeof passthroughModelSchema>;
export type ScriptedReplyConfig = z.infer<typeof scriptedReplySchema>;
export type Price = z.infer<typeof priceSchema>;
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;

import { modelOption } from '@longhaul/core';
import { z } from 'zod';
import { type ToolName, toolNames, upstreamToolNames } from './tools/names.js';

/** Prefixes of a model option that call a provider directly, not through the run's gateway. */
export const directProviders = ['anthropic', 'openai', 'openai-compatible'] as const;

/** Grading assets IDE-Bench's harness keeps away from the agent (its code-parity list). */
export const defaultProtected = ['tasks/**', '**/run_tests.sh', '**/run-tests.sh', '**/task_tests.*'];

/** The paper's stricter list (F.3.2): test files and test directories too. */
export const paperProtected = [
  ...defaultProtected,
  '**/test_*.py',
  '**/*.test.js',
  '**/*.spec.ts',
  '**/tests/**',
  '**/__tests__/**',
];

/** Which tools, prompt and defaults a session has: the paper's harness or the released one. */
export const profiles = ['paper', 'upstream'] as const;
export type Profile = (typeof profiles)[number];

/** Every tool name either profile knows, for the `tools` and `excludeTools` options. */
const anyToolName = z.enum([...new Set<ToolName>([...toolNames, ...upstreamToolNames])] as [
  ToolName,
  ...ToolName[],
]);

export const ideOptions = z
  .object({
    profile: z
      .enum(profiles)
      .default('paper')
      .describe(
        "`paper`: the tools, security list and defaults the paper describes (explanation on every call, numbered read_file, edits against one numbering, 100 iterations). `upstream`: IDE-Bench's released harness (IDE-Arena): its 16 tool schemas, their results and edit and search semantics, its prompt layout, 35 iterations and its completion guard; see the README's list of differences",
      ),
    model: modelOption(
      "Model to drive the loop. A name without a prefix is asked of the run's gateway (default: the trial's gateway model); `anthropic:<id>`, `openai:<id>` or `openai-compatible:<id>` call that provider directly from the runner's process",
      { directPrefixes: directProviders },
    ).optional(),
    api: z
      .enum(['chat', 'responses', 'anthropic'])
      .default('chat')
      .describe(
        'API used to reach the gateway: OpenAI Chat Completions (as LiteLLM in the paper), OpenAI Responses or Anthropic Messages',
      ),
    baseURL: z
      .string()
      .url()
      .optional()
      .describe(
        'Base URL of an OpenAI-compatible provider (with `openai-compatible:<id>`), or to override a provider',
      ),
    apiKeyEnv: z
      .string()
      .optional()
      .describe(
        'Name of the host environment variable holding the provider key (default ANTHROPIC_API_KEY / OPENAI_API_KEY); the key never reaches the sandbox',
      ),
    maxIterations: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "Model calls per turn (one call is one iteration). Default: 100 (the paper's) with profile paper, 35 (the released harness's) with upstream",
      ),
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .default(0.1)
      .describe('Sampling temperature (paper: 0.1)'),
    maxOutputTokens: z
      .number()
      .int()
      .positive()
      .default(4000)
      .describe('Output tokens per model call (paper: 4000)'),
    callTimeoutSeconds: z
      .number()
      .positive()
      .default(600)
      .describe('Time limit of one model call, seconds (paper: 600)'),
    retries: z
      .number()
      .int()
      .nonnegative()
      .default(5)
      .describe('Retries of a model call after a transient error (429, 5xx, timeout, network)'),
    retryDelaySeconds: z
      .number()
      .nonnegative()
      .default(10)
      .describe('First retry delay, doubled on every further retry (paper: 10 s, exponential)'),
    truncateAfterMessages: z
      .number()
      .int()
      .positive()
      .default(25)
      .describe('Context truncation looks at the history once it holds more messages than this (paper: 25)'),
    contextWindow: z
      .number()
      .int()
      .positive()
      .default(128_000)
      .describe("The model's context window in tokens, for truncation"),
    contextShare: z
      .number()
      .gt(0)
      .max(1)
      .default(0.8)
      .describe(
        'Share of the context window the kept history may fill: system prompt, first user message and the most recent whole turns (paper: 0.8)',
      ),
    tools: z
      .array(anyToolName)
      .optional()
      .describe(
        'The tools offered (default: profile paper, all but the full-stack ones, which `fullStack` adds; upstream, its 16)',
      ),
    excludeTools: z.array(anyToolName).default([]).describe('Tools to leave out of the offered set'),
    extraTools: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Modules (paths relative to the experiment, or package names) whose default export is a tool or a list of tools {name, description, input: zod object, run(input, ctx)}; they are offered too',
      ),
    mcpServers: z
      .record(
        z.string().regex(/^[A-Za-z0-9_-]+$/, 'a server name may hold only letters, digits, _ and -'),
        z.union([
          z.strictObject({
            url: z.string().url().describe('Streamable HTTP (or SSE) endpoint of the server'),
            type: z.enum(['http', 'sse']).default('http'),
            headers: z.record(z.string(), z.string()).optional(),
          }),
          z.strictObject({
            command: z.string().min(1).describe('Program started on the host that speaks MCP over stdio'),
            args: z.array(z.string()).default([]),
            env: z.record(z.string(), z.string()).default({}).describe('Its environment (PATH is added)'),
          }),
        ]),
      )
      .default({})
      .describe(
        'MCP servers whose tools are offered as `<server>__<tool>`. They run where configured (a URL, or a command on the host), not in the sandbox',
      ),
    fullStack: z
      .enum(['auto', 'on', 'off'])
      .default('auto')
      .describe(
        "Offer api_call, database_query and websocket_test: `auto` when the task's tags include mern or full-stack",
      ),
    explanation: z
      .enum(['required', 'optional'])
      .default('required')
      .describe(
        'Profile paper: whether every tool call must carry an `explanation` (the paper requires one; a model that omits it gets an error result). Profile upstream takes it where its schemas have it, never required',
      ),
    protected: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Workspace globs no tool may read, list, search, edit, delete or name in a command (grading assets). Default: IDE-Bench's grading files with profile paper; none with upstream, whose own rules apply (run_tests.sh, task_tests.*, tasks/ for read_file). Hidden tests are never in the sandbox anyway",
      ),
    commandTimeoutSeconds: z
      .number()
      .positive()
      .default(120)
      .describe('Time limit of a foreground run_terminal_cmd (paper: 120 s)'),
    searchTimeoutSeconds: z
      .number()
      .positive()
      .default(30)
      .describe(
        "Time limit of one search (codebase_search, grep_search, a file_search glob), which runs off the runner's thread; a pattern that backtracks past it gets an error result",
      ),
    outputLimit: z
      .number()
      .int()
      .positive()
      .default(60_000)
      .describe('Characters of a tool result the model sees; longer results are cut in the middle'),
    syntaxCheck: z
      .boolean()
      .default(true)
      .describe(
        'Refuse edits that leave a Python, TypeScript or JavaScript file unparsable (nothing is written)',
      ),
    apiBaseUrl: z
      .string()
      .url()
      .default('http://localhost:5001')
      .describe("Base of relative api_call URLs; localhost means the sandbox's own servers"),
    mongoUri: z
      .string()
      .default('mongodb://localhost:27017/test')
      .describe('MongoDB URI database_query uses (through mongosh inside the sandbox)'),
    nudge: z
      .boolean()
      .optional()
      .describe(
        "IDE-Bench code's completion guard: when the model stops before any successful edit in the turn, tell it to implement now and go on. Default: off with profile paper (the paper has none), on with upstream",
      ),
    systemPrompt: z
      .string()
      .optional()
      .describe("System prompt replacing the paper's (F.4); the experiment's extra prompt is appended"),
    systemPromptFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A file (relative to the experiment) whose text replaces the paper's system prompt, e.g. IDE-Arena-Prompt.txt of a checkout of IDE-Bench's harness with profile upstream, which then also starts the first user message with it, as that harness does",
      ),
  })
  .strict()
  .superRefine((options, ctx) => {
    if (options.systemPrompt !== undefined && options.systemPromptFile !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['systemPromptFile'],
        message: 'give systemPrompt or systemPromptFile, not both',
      });
    const known: readonly string[] = options.profile === 'upstream' ? upstreamToolNames : toolNames;
    for (const key of ['tools', 'excludeTools'] as const)
      (options[key] ?? []).forEach((name, i) => {
        if (!known.includes(name))
          ctx.addIssue({
            code: 'custom',
            path: [key, i],
            message: `profile ${options.profile} has no tool ${name}; its tools: ${known.join(', ')}`,
          });
      });
  });

export type IdeOptions = z.output<typeof ideOptions>;

/** The options with the defaults that depend on the profile filled in. */
export type IdeSettings = IdeOptions & { maxIterations: number; nudge: boolean; protected: string[] };

export function settle(options: IdeOptions): IdeSettings {
  const upstream = options.profile === 'upstream';
  return {
    ...options,
    maxIterations: options.maxIterations ?? (upstream ? 35 : 100),
    nudge: options.nudge ?? upstream,
    protected: options.protected ?? (upstream ? [] : defaultProtected),
  };
}

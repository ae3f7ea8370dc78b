import { z } from 'zod';
import type { PluginRef } from '../contracts/trial.js';
import { timerSeconds } from './timer-limit.js';

/** Fields of an experiment that name plugins, with the kind each names and whether it is a matrix axis. */
export const refFields = [
  { field: 'source', kind: 'source', shape: 'axis' },
  { field: 'harness', kind: 'harness', shape: 'axis' },
  { field: 'environment', kind: 'environment', shape: 'axis' },
  { field: 'script', kind: 'script', shape: 'axis' },
  { field: 'memory', kind: 'memory', shape: 'axis' },
  { field: 'scorers', kind: 'scorer', shape: 'list' },
  { field: 'reporters', kind: 'reporter', shape: 'list' },
  { field: 'executor', kind: 'executor', shape: 'one' },
] as const;

export type RefField = (typeof refFields)[number]['field'];

const refMessage = 'expected a plugin id, or a mapping { id, options, label }';

export const pluginRefSchema = z.union(
  [
    z.string().min(1).describe('A plugin id'),
    z.strictObject({
      id: z.string().min(1).describe('The plugin id'),
      options: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("The plugin's options (see `longhaul plugins` and the plugin's README)"),
      label: z
        .string()
        .regex(/^[A-Za-z0-9._#-]+$/, "a label may hold only letters, digits, '.', '_', '#' and '-'")
        .optional()
        .describe(
          'How conditions and trial ids name this entry (default: the id, or id#n when the id appears with several options)',
        ),
    }),
  ],
  { error: refMessage },
);

const axis = (description: string) =>
  z
    .union([pluginRefSchema, z.array(pluginRefSchema).min(1)], { error: `${refMessage}, or a list of them` })
    .describe(description);

const list = (description: string) =>
  z
    .union([pluginRefSchema, z.array(pluginRefSchema)], { error: `${refMessage}, or a list of them` })
    .describe(description);

export const limitsSchema = z
  .strictObject({
    turnSeconds: timerSeconds().default(1800).describe('Wall clock per turn, in seconds'),
    stepSeconds: timerSeconds().default(3600).describe('Wall clock per step over all its turns, in seconds'),
    turnsPerStep: z
      .int()
      .min(1)
      .default(1)
      .describe(
        'Turns per step, counting feedback cycles; a turn that covers several steps (single-shot) may take this many per step',
      ),
    trialUsd: z.number().min(0).default(0).describe('Spend per trial in USD; 0 means no cap'),
    onError: z
      .enum(['stop', 'continue'])
      .default('stop')
      .describe('What a trial does after a step ends in a fault or a limit'),
  })
  .describe('Limits the kernel enforces on every trial');

/** The kernel's part of an experiment file; plugin options are checked against each plugin's schema. */
export const experimentSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, "a name may hold only letters, digits, '.', '_' and '-'")
      .optional()
      .describe('Names the run directory (default: the file name without extension)'),
    description: z.string().optional().describe('What the experiment is for'),
    baseDir: z
      .string()
      .optional()
      .describe(
        'Directory relative paths resolve against (written into resolved experiments; default: the directory of the file)',
      ),
    plugins: z
      .array(z.string().min(1))
      .optional()
      .describe('Extra plugins: package names, or folders relative to this file'),
    source: axis('Where tasks come from: a source plugin or a list of them (tasks are concatenated)'),
    tasks: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
        error: 'expected a task id or glob, or a list of them',
      })
      .optional()
      .describe('Task ids to run (exact ids or globs like "word*"; default: every task)'),
    harness: axis('The agent harness: a matrix axis'),
    environment: axis('Where the agent works: a matrix axis (default: local)').default('local'),
    script: axis('How steps are delivered: a matrix axis (default: checkpoints)').default('checkpoints'),
    memory: axis('Memory around turns: a matrix axis (default: none)').default('none'),
    scorers: list('Scorers (default: [tests])').default(['tests']),
    reporters: list('Reporters (default: [summary])').default(['summary']),
    tamperSignals: z
      .boolean()
      .default(true)
      .describe(
        'Add the `integrity` scorer (tamper signals per step: test files, test configuration, runner hooks, start-up files the agent changed) when it is installed and `scorers` does not list it; false leaves it out',
      ),
    repeats: z.int().min(1).default(1).describe('Trials per task and condition'),
    concurrency: z.int().min(1).default(1).describe('Trials run at once'),
    caseWorkers: z
      .int()
      .min(1)
      .optional()
      .describe(
        "Hidden-test cases run at once, shared by all the run's trials (default: the cores available, os.availableParallelism() lowered by the cgroup's cpu.max)",
      ),
    trialLimit: z
      .int()
      .min(1)
      .optional()
      .describe(
        'Run only N trials of the plan, taken in turn from each condition in the order of tasks (default: all); `longhaul run --limit N` sets it',
      ),
    executor: pluginRefSchema
      .optional()
      .describe('Where trials run: an executor plugin (default: an in-process pool of `concurrency` trials)'),
    limits: limitsSchema.default({
      turnSeconds: 1800,
      stepSeconds: 3600,
      turnsPerStep: 1,
      trialUsd: 0,
      onError: 'stop',
    }),
    models: z.unknown().optional().describe("The model gateway's configuration"),
    prices: z
      .unknown()
      .optional()
      .describe('Prices per model for the gateway, overriding its built-in table'),
  })
  .describe('A longhaul experiment: tasks × harness × script × memory × environment × repeats');

export type LimitsConfig = z.output<typeof limitsSchema>;

/** An experiment with defaults filled in and every plugin ref in object form, options validated. */
export interface ExperimentConfig {
  name: string;
  description?: string;
  /** Absolute directory relative paths resolve against. */
  baseDir: string;
  /** Extra plugins: package names, or absolute paths of local plugins. */
  plugins: string[];
  source: PluginRef[];
  /** Task id filter (ids or globs); absent means every task. */
  tasks?: string[];
  harness: PluginRef[];
  environment: PluginRef[];
  script: PluginRef[];
  memory: PluginRef[];
  scorers: PluginRef[];
  reporters: PluginRef[];
  /** Whether the tamper-signal scorer was added where the experiment did not list it. */
  tamperSignals: boolean;
  repeats: number;
  concurrency: number;
  /** Hidden-test cases at once across the run's trials; absent means the cores available. */
  caseWorkers?: number;
  /** Only this many trials of the plan run, taken in turn from each condition. */
  trialLimit?: number;
  /** The executor plugin, when one is chosen (at most one). */
  executor: PluginRef[];
  limits: LimitsConfig;
  models?: unknown;
  prices?: unknown;
}

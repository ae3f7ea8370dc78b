import { z } from 'zod';
import { ConfigError } from '../config/config-error.js';
import { timerMs } from '../config/timer-limit.js';
import { readYaml, type YamlFile } from '../config/yaml-file.js';
import { checkYaml } from './yaml-schema.js';

/**
 * Hidden black-box CLI cases of the native task format (problems/<task>/steps/<nn>-<slug>/cases/).
 * The source validates them when it loads a task and the tests scorer runs them, so the format
 * lives here, where both can read it.
 */
export const caseCategories = ['core', 'functionality', 'error'] as const;
export type CaseCategory = (typeof caseCategories)[number];

export const normalizers = ['trim', 'whitespace', 'sortLines', 'lowercase'] as const;
export type Normalizer = (typeof normalizers)[number];

export const relativePath = z
  .string()
  .min(1)
  .refine((path) => !path.startsWith('/') && !path.split(/[\\/]/).includes('..'), {
    message: 'must be a path inside the workspace (relative, no "..")',
  });

const expectationKinds = ['text', 'json', 'jsonl', 'regex', 'absent'] as const;

export const outputExpectationSchema = z
  .strictObject({
    text: z.string().optional().describe('Exact text after normalization'),
    json: z.unknown().optional().describe('A JSON value; object key order is irrelevant'),
    jsonl: z.array(z.unknown()).optional().describe('One JSON value per non-empty line'),
    regex: z.string().optional().describe('A JavaScript regular expression the output must match'),
    absent: z.literal(true).optional().describe('The file must not exist (output files only)'),
    normalize: z
      .array(z.enum(normalizers))
      .optional()
      .describe('Applied to both sides before comparing: trim, whitespace, sortLines, lowercase'),
    tolerance: z.number().nonnegative().optional().describe('Absolute tolerance for numbers in JSON'),
  })
  .superRefine((value, ctx) => {
    const given = expectationKinds.filter((kind) => kind in value);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `needs exactly one of ${expectationKinds.join(', ')} (found ${given.length ? given.join(', ') : 'none'})`,
      });
    }
    if (value.regex !== undefined) {
      try {
        new RegExp(value.regex);
      } catch (error) {
        ctx.addIssue({ code: 'custom', path: ['regex'], message: (error as Error).message });
      }
    }
    if (value.tolerance !== undefined && !('json' in value || 'jsonl' in value)) {
      ctx.addIssue({ code: 'custom', path: ['tolerance'], message: 'applies to json and jsonl only' });
    }
    // JSON is compared as data (key order never matters); only jsonl has a line order to drop.
    const allowed: readonly string[] = 'json' in value ? [] : 'jsonl' in value ? ['sortLines'] : normalizers;
    const refused = (value.normalize ?? []).filter((name) => !allowed.includes(name));
    if (refused.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['normalize'],
        message: `${refused.join(', ')} cannot apply here (json takes none, jsonl only sortLines)`,
      });
    }
  });
export type OutputExpectation = z.output<typeof outputExpectationSchema>;

/** An exit code a run must end with: a number, or `nonzero` for any failure (a grader that must fail). */
const exitCodeError = 'must be an exit code (an integer) or nonzero';
export const exitCodeSchema = z
  .union([z.number({ error: exitCodeError }).int(), z.literal('nonzero', { error: exitCodeError })], {
    error: exitCodeError,
  })
  .describe('The exit code, or nonzero for any failing exit');
export type ExpectedExitCode = z.output<typeof exitCodeSchema>;

/** Whether `actual` is the exit code a case expects (`nonzero`: any exit but 0, not a kill). */
export function exitCodeMatches(expected: ExpectedExitCode, actual: number | null): boolean {
  return expected === 'nonzero' ? actual !== null && actual !== 0 : actual === expected;
}

const invocationSchema = z.strictObject({
  argv: z.array(z.string()).describe('Arguments after the entrypoint'),
  stdin: z.string().optional(),
  exitCode: exitCodeSchema.default(0).describe('The exit code this invocation must end with'),
});

/**
 * Workspace paths a case owns (its grader, its tests and their configuration), as environments'
 * excludes read them: a name matches anywhere, a path with `/` from the workspace root, globs
 * within a segment. Whatever the agent left there is removed before the case's files are written,
 * so the judge runs none of it.
 */
export const removeSchema = z
  .array(z.string().min(1))
  .optional()
  .describe(
    'Workspace paths the case owns, removed before its files are written (a name matches anywhere, a path with / from the root; globs within a segment)',
  );

export const cliCaseSchema = z.strictObject({
  description: z.string().optional(),
  argv: z.array(z.string()).describe('Arguments after the entrypoint'),
  stdin: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  files: z
    .record(relativePath, z.string())
    .optional()
    .describe('Input files written into the workspace before the case runs'),
  remove: removeSchema,
  before: z
    .array(invocationSchema)
    .optional()
    .describe('Invocations run first, in order; each must end with its exitCode (default 0)'),
  timeoutMs: timerMs().optional().describe("Overrides the task's timeouts.caseMs"),
  expect: z.strictObject({
    exitCode: exitCodeSchema.default(0),
    stdout: outputExpectationSchema.optional(),
    stderr: outputExpectationSchema.optional(),
    files: z.record(relativePath, outputExpectationSchema).optional(),
  }),
});
export type CliCase = z.output<typeof cliCaseSchema>;

/** Reads and validates a case file; a bad file is a ConfigError located at the key at fault. */
export async function readCliCase(file: string): Promise<CliCase> {
  return cliCaseOf(await readYaml(file));
}

/** Validates a parsed case file as a CLI case. */
export function cliCaseOf(yaml: YamlFile): CliCase {
  const parsed = checkYaml(yaml, cliCaseSchema);
  if (!parsed.data) throw new ConfigError(parsed.issues);
  for (const [name, expectation] of Object.entries(parsed.data.expect.files ?? {})) {
    if (expectation.absent && Object.keys(expectation).length > 1) {
      throw new ConfigError([yaml.issue(['expect', 'files', name], "'absent' takes no other keys")]);
    }
  }
  for (const stream of ['stdout', 'stderr'] as const) {
    if (parsed.data.expect[stream]?.absent) {
      throw new ConfigError([
        yaml.issue(['expect', stream, 'absent'], "'absent' applies to output files only"),
      ]);
    }
  }
  return parsed.data;
}

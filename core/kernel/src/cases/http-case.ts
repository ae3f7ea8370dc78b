import { z } from 'zod';
import { ConfigError } from '../config/config-error.js';
import { timerMs } from '../config/timer-limit.js';
import { readYaml, type YamlFile } from '../config/yaml-file.js';
import { relativePath } from './cli-case.js';
import { checkYaml } from './yaml-schema.js';

/**
 * Hidden black-box HTTP cases of the native task format: the solution's server is started from the
 * task's entrypoint, and an ordered list of requests runs against it. A case file is an HTTP case
 * when it has `requests`; otherwise it is a CLI case.
 */
export const httpNormalizers = ['sortLists'] as const;
export type HttpNormalizer = (typeof httpNormalizers)[number];

export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** The value a case writes in place of the port the server must listen on. */
export const portPlaceholder = '{port}';

const expectationKinds = ['json', 'partial', 'schema', 'text'] as const;

export const httpExpectationSchema = z
  .strictObject({
    status: z.number().int().min(100).max(599).describe('The status code the response must have'),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        'Headers the response must have; each value is a regular expression (case-insensitive names)',
      ),
    json: z.unknown().optional().describe('The body as JSON, exactly (object key order never matters)'),
    partial: z
      .unknown()
      .optional()
      .describe('The body as JSON, where objects may have more keys than listed (recursively)'),
    schema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('A JSON Schema (draft 2020-12 or draft-07) the JSON body must satisfy'),
    text: z.string().optional().describe('The body as text, exactly'),
    normalize: z
      .array(z.enum(httpNormalizers))
      .optional()
      .describe('sortLists: every JSON array is compared as a multiset (order dropped on both sides)'),
    tolerance: z.number().nonnegative().optional().describe('Absolute tolerance for numbers in JSON'),
    timestampToleranceMs: z
      .number()
      .nonnegative()
      .optional()
      .describe(
        'ISO-8601 date-time strings match when they are this close; "{{now}}" in expected data is the request time',
      ),
  })
  .superRefine((value, ctx) => {
    const given = expectationKinds.filter((kind) => kind in value);
    if (given.length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: `takes at most one of ${expectationKinds.join(', ')} (found ${given.join(', ')})`,
      });
    }
    const jsonOptions = ['normalize', 'tolerance', 'timestampToleranceMs'].filter((key) => key in value);
    if (jsonOptions.length > 0 && !('json' in value || 'partial' in value)) {
      ctx.addIssue({
        code: 'custom',
        path: [jsonOptions[0]!],
        message: 'applies to json and partial bodies only',
      });
    }
  });
export type HttpExpectation = z.output<typeof httpExpectationSchema>;

const requestSchema = z
  .strictObject({
    method: z.enum(httpMethods).default('GET'),
    path: z
      .string()
      .startsWith('/', 'must start with "/"')
      .describe('Path and query; {{name}} is a value saved by an earlier request'),
    headers: z.record(z.string(), z.string()).optional(),
    json: z.unknown().optional().describe('A JSON body (sent with content-type application/json)'),
    body: z.string().optional().describe('A raw body, sent as it is'),
    expect: httpExpectationSchema,
    save: z
      .record(z.string().regex(/^[A-Za-z_]\w*$/, 'a name of letters, digits and _'), z.string())
      .optional()
      .describe('Values of the JSON body to reuse later as {{name}}, each a dot path like items.0.id'),
  })
  .superRefine((value, ctx) => {
    if ('json' in value && value.body !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'give json or body, not both' });
    }
  });
export type HttpRequest = z.output<typeof requestSchema>;

const restartSchema = z.strictObject({
  restart: z.literal(true).describe('Stop the server and start it again (e.g. to check persistence)'),
});

export const httpCaseSchema = z.strictObject({
  description: z.string().optional(),
  server: z
    .strictObject({
      argv: z
        .array(z.string())
        .default([])
        .describe(`Arguments after the entrypoint; ${portPlaceholder} becomes the port`),
      env: z.record(z.string(), z.string()).optional().describe('Extra environment (PORT is always set)'),
      ready: z
        .strictObject({
          path: z.string().startsWith('/').optional().describe('Poll this path until it answers below 500'),
          timeoutMs: timerMs().default(10_000),
        })
        .default({ timeoutMs: 10_000 })
        .describe('Readiness: the port accepts connections (and `path` answers, when given)'),
    })
    .default({ argv: [], ready: { timeoutMs: 10_000 } }),
  files: z
    .record(relativePath, z.string())
    .optional()
    .describe('Input files written into the workspace before the server starts'),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Per request; overrides the task's timeouts.caseMs"),
  requests: z
    .array(z.union([requestSchema, restartSchema]))
    .min(1)
    .describe('Run in order'),
});
export type HttpCase = z.output<typeof httpCaseSchema>;

/** Reads and validates an HTTP case file; a bad file is a ConfigError located at the key at fault. */
export async function readHttpCase(file: string): Promise<HttpCase> {
  return httpCaseOf(await readYaml(file));
}

/** Validates a parsed case file as an HTTP case. */
export function httpCaseOf(yaml: YamlFile): HttpCase {
  const parsed = checkYaml(yaml, httpCaseSchema);
  if (!parsed.data) throw new ConfigError(parsed.issues);
  return parsed.data;
}

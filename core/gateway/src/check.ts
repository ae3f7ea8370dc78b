import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { closest, isConfigError, type PathIssue, schemaIssues } from '@longhaul/core';
import { loadReplies } from './backends/index.js';
import { gatewayConfigSchema, type ModelConfig, modelSchema, passthroughModelSchema } from './config.js';

export interface CheckGatewayOptions {
  /** Where provider keys are read from (default: process.env). Only their presence is checked. */
  env?: NodeJS.ProcessEnv;
  /** Directory relative paths (scripted files, replay sources) resolve from. */
  baseDir: string;
}

/** What `createGateway` says when a model's key variable is unset; `validate` says the same. */
export function missingKeyMessage(name: string, variable: string): string {
  return `environment variable ${variable} is not set on the host (the provider key for model '${name}'); export it before the run`;
}

/**
 * Everything wrong with an experiment's `models:` and `prices:` that the gateway would refuse at
 * start, as key paths (`models.oracle.backend`) the caller locates in its file: the schema, unset
 * key variables, `wraps` naming no recordable model, scripted and replay files that are missing.
 * Reads no key and opens nothing.
 */
export async function checkGatewayConfig(
  config: { models?: unknown; prices?: unknown },
  options: CheckGatewayOptions,
): Promise<PathIssue[]> {
  const section = {
    models: config.models ?? {},
    ...(config.prices === undefined ? {} : { prices: config.prices }),
  };
  const backendIssues = unknownBackends(section.models);
  if (backendIssues.length > 0) return backendIssues;
  const { issues, data } = schemaIssues(gatewayConfigSchema, section);
  if (!data) return issues;
  const env = options.env ?? process.env;
  const { models } = gatewayConfigSchema.parse(section);
  const path = (file: string) => (isAbsolute(file) ? file : resolve(options.baseDir, file));
  for (const [name, model] of Object.entries(models)) {
    const at = (key: string) => ['models', name, key];
    const variable = keyVariable(model);
    if (variable !== undefined && !env[variable])
      issues.push({ path: at('apiKeyEnv'), message: missingKeyMessage(name, variable) });
    if (model.backend === 'record' && model.wraps !== undefined) {
      const wrapped = models[model.wraps];
      if (!wrapped || wrapped.backend === 'record')
        issues.push({
          path: at('wraps'),
          message: `'${model.wraps}' is not a model of models: that can be recorded (not a record model itself)`,
          known: Object.keys(models).filter((other) => models[other]?.backend !== 'record'),
        });
    }
    if (model.backend === 'scripted' && model.file !== undefined) {
      const problem = await readable(path(model.file), loadReplies);
      if (problem) issues.push({ path: at('file'), message: problem });
    }
    if (model.backend === 'replay' && !existsSync(path(model.from)))
      issues.push({
        path: at('from'),
        message: `${path(model.from)} does not exist (a run directory or recording.jsonl made with the record backend)`,
      });
  }
  return issues;
}

const backends = modelSchema.options.map((option) => option.shape.backend.value);
const providers = passthroughModelSchema.shape.provider.options;

/**
 * A `backend:` or `provider:` that names none of the gateway's, said plainly with the likely one
 * (zod's union and enum messages suggest nothing).
 */
function unknownBackends(models: unknown): PathIssue[] {
  if (models === null || typeof models !== 'object' || Array.isArray(models)) return [];
  return Object.entries(models).flatMap(([name, model]) => {
    const { backend, provider } = (model ?? {}) as { backend?: unknown; provider?: unknown };
    if (typeof provider === 'string' && !(providers as string[]).includes(provider))
      return [
        {
          path: ['models', name, 'provider'],
          message: `unknown provider '${provider}' (providers: ${providers.join(', ')})`,
          suggestion: closest(provider, providers),
        },
      ];
    if (typeof backend !== 'string' || (backends as string[]).includes(backend)) return [];
    return [
      {
        path: ['models', name, 'backend'],
        message: `unknown backend '${backend}' (backends: ${backends.join(', ')})`,
        suggestion: closest(backend, backends),
      },
    ];
  });
}

/** The host variable holding the provider key a model calls with (none for local backends). */
function keyVariable(model: ModelConfig): string | undefined {
  if (model.backend === 'passthrough') return model.apiKeyEnv;
  return model.backend === 'record' && model.wraps === undefined ? model.apiKeyEnv : undefined;
}

/** Why `file` cannot be used: missing, or the first problem `load` finds in it. */
async function readable(file: string, load: (file: string) => Promise<unknown>): Promise<string | undefined> {
  if (!existsSync(file)) return `${file} does not exist`;
  try {
    await load(file);
    return undefined;
  } catch (error) {
    if (isConfigError(error)) return error.message.split('\n')[0];
    return (error as Error).message;
  }
}

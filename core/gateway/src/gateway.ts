import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  ClassifiedError,
  ConfigError,
  formatKeyPath,
  type Logger,
  type ModelEndpoint,
  type ModelGateway,
  type TurnFocus,
  type Usage,
} from '@longhaul/core';
import type { Backend, CallContext } from './backends/backend.js';
import { type BackendDeps, createBackend } from './backends/index.js';
import { type GatewayConfigInput, gatewayConfigSchema, type ModelConfig } from './config.js';
import type { GatewayError } from './errors.js';
import { JsonlFile } from './jsonl.js';
import { Listeners } from './listeners.js';
import { defaultPrices, estimateUsage, Meter } from './metering.js';
import type { ModelReply, ModelRequest } from './model.js';
import { createHandler } from './server.js';

export interface GatewayOptions {
  /** The run directory; recordings go to `<runDir>/gateway/`. */
  runDir: string;
  /** Directory relative paths in the config (scripted files, replay sources) are resolved from. */
  baseDir?: string;
  log?: Logger;
  /** Where provider keys are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** The experiment file the configuration came from, named in configuration errors. */
  configFile?: string;
  /** Port of the loopback listener (default: any free port). */
  port?: number;
}

/** The run's model gateway: the kernel's ModelGateway plus what its owner needs to run and stop it. */
export interface Gateway extends ModelGateway {
  /** Base URL on the loopback address (no `/v1`). */
  readonly url: string;
  /** Configured model names. */
  readonly models: string[];
  /** Faults answered to the trial's requests since the last call (auth, rate_limit, server...). */
  takeErrors(trialId: string): ClassifiedError[];
  close(): Promise<void>;
}

interface TrialEntry {
  token: string;
}

export async function createGateway(config: GatewayConfigInput, options: GatewayOptions): Promise<Gateway> {
  const configFile = options.configFile ?? 'experiment';
  const parsed = gatewayConfigSchema.safeParse(config);
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        file: configFile,
        key: formatKeyPath(issue.path as (string | number)[]) || undefined,
        message: issue.message,
      })),
    );
  const { models, prices } = parsed.data;
  const env = options.env ?? process.env;
  const deps: BackendDeps = {
    configFile,
    baseDir: options.baseDir ?? process.cwd(),
    runDir: options.runDir,
    env,
    log: options.log,
  };
  const backends = new Map<string, Backend>();
  // Models that record another model are made last, once the model they wrap exists.
  const wrapping = (model: ModelConfig) => model.backend === 'record' && model.wraps !== undefined;
  const ordered = Object.entries(models).sort(([, a], [, b]) => Number(wrapping(a)) - Number(wrapping(b)));
  const made = new Map<string, Backend>();
  for (const [name, model] of ordered) made.set(name, await createBackend(name, model, deps, made));
  // Answer in the order the experiment lists its models (the first is the default endpoint model).
  for (const name of Object.keys(models)) backends.set(name, made.get(name)!);
  const meter = new Meter({ ...(await defaultPrices()), ...prices });
  const upstreamIds = new Map(
    Object.entries(models).map(([name, model]) => [
      name,
      'model' in model && model.model ? [name, model.model] : [name],
    ]),
  );
  for (const [name, ids] of upstreamIds)
    if (ids.length > 1 && !meter.hasPrice(ids))
      options.log?.warn(
        `gateway: no price for model '${name}' (${ids.join(', ')}); its cost is counted as 0`,
      );

  const requestLog = new JsonlFile(join(options.runDir, 'gateway/requests.jsonl'), options.log);
  const trials = new Map<string, TrialEntry>();
  const tokens = new Map<string, string>();
  const focuses = new Map<string, TurnFocus>();
  const errors = new Map<string, ClassifiedError[]>();

  const listeners = new Listeners(
    createHandler({
      authenticate: (token) => tokens.get(token),
      backend: (model) => backends.get(model),
      modelNames: () => [...backends.keys()],
      context: (trialId, modelName, signal): CallContext => ({
        trialId,
        modelName,
        focus: focuses.get(trialId),
        signal,
      }),
      replied(trialId: string, request: ModelRequest, reply: ModelReply) {
        const counts = isEmpty(reply) ? estimateUsage(request, reply.content) : reply.usage;
        if (reply.stopReason === 'refusal')
          record(trialId, new ClassifiedError('refusal', `model '${request.model}' refused to answer`));
        // The provider's own model id in the reply prices replayed exchanges too.
        return meter.add(trialId, counts, [
          ...(upstreamIds.get(request.model) ?? [request.model]),
          reply.model,
        ]);
      },
      finished: (entry) => requestLog.append(entry),
      failed(trialId: string | undefined, error: GatewayError) {
        options.log?.warn(
          `gateway: ${trialId ? `trial ${trialId}: ` : ''}${error.errorClass}: ${error.message}`,
        );
        if (trialId) record(trialId, error);
      },
    }),
  );
  const record = (trialId: string, error: ClassifiedError) =>
    errors.set(trialId, [...(errors.get(trialId) ?? []), error]);
  const url = await listeners.listen('127.0.0.1', options.port);
  const names = [...backends.keys()];

  return {
    url,
    models: names,
    async endpoint(trialId, hostAddress, purpose): Promise<ModelEndpoint> {
      let entry = trials.get(trialId);
      if (!entry) {
        entry = { token: `lh-${randomBytes(24).toString('hex')}` };
        trials.set(trialId, entry);
        tokens.set(entry.token, trialId);
      }
      const baseUrl = await listeners.listen(hostAddress);
      const model = purpose && backends.has(purpose) ? purpose : names[0];
      if (!model) throw new ClassifiedError('internal', 'the gateway has no models configured');
      return { baseUrl, hostBaseUrl: url, token: entry.token, model };
    },
    focus(trialId, focus) {
      focuses.set(trialId, focus);
    },
    takeUsage: (trialId): Usage => meter.take(trialId),
    takeErrors(trialId) {
      const list = errors.get(trialId) ?? [];
      errors.delete(trialId);
      return list;
    },
    release(trialId) {
      const entry = trials.get(trialId);
      if (entry) tokens.delete(entry.token);
      trials.delete(trialId);
      focuses.delete(trialId);
      errors.delete(trialId);
    },
    async close() {
      await listeners.close();
      await Promise.all([deps.recorder?.flush(), requestLog.flush()]);
    },
  };
}

function isEmpty(reply: ModelReply): boolean {
  const u = reply.usage;
  return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens === 0;
}

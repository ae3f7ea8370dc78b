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
import { BodyBudget, defaultMaxBodyBytes, defaultMaxInFlightBytes } from './body.js';
import { type GatewayConfigInput, gatewayConfigSchema, type ModelConfig } from './config.js';
import type { GatewayError } from './errors.js';
import { Grants } from './grants.js';
import { JsonlFile } from './jsonl.js';
import { Listeners } from './listeners.js';
import { defaultPrices, estimateUsage, Meter } from './metering.js';
import type { ModelReply, ModelRequest } from './model.js';
import { createHandler } from './server.js';
import { TrialFaults } from './trial-faults.js';
import { Unauthenticated, type UnauthenticatedOptions } from './unauthenticated.js';

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
  /** A request body larger than this is answered 413 (default 16 MiB). */
  maxBodyBytes?: number;
  /** Request body bytes held by all requests at once; past it a request is answered 503 (default 64 MiB). */
  maxInFlightBytes?: number;
  /** Rate limit and summaries of requests without a valid token (default: 20 at once, 1 per second per address). */
  unauthenticated?: UnauthenticatedOptions;
}

/** The run's model gateway: the kernel's ModelGateway plus what its owner needs to run and stop it. */
export interface Gateway extends ModelGateway {
  /** Base URL on the loopback address (no `/v1`). */
  readonly url: string;
  /** Configured model names; the first is the default model of `endpoint`. */
  readonly models: string[];
  /** Faults answered to the trial's requests since the last call (forbidden, rate_limit, server...). */
  takeErrors(trialId: string): ClassifiedError[];
  close(): Promise<void>;
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
  const grants = new Grants();
  const focuses = new Map<string, TurnFocus>();
  const faults = new TrialFaults();
  const unauthenticated = new Unauthenticated(options.log, options.unauthenticated);

  const listeners = new Listeners(
    createHandler({
      authenticate: (token) => grants.check(token),
      unauthenticated: (address, what) => unauthenticated.refuse(address, what),
      backend: (model) => backends.get(model),
      maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
      bodies: new BodyBudget(options.maxInFlightBytes ?? defaultMaxInFlightBytes),
      context: (trialId, modelName, signal): CallContext => ({
        trialId,
        modelName,
        focus: focuses.get(trialId),
        signal,
      }),
      replied(trialId: string, request: ModelRequest, reply: ModelReply) {
        const counts = isEmpty(reply) ? estimateUsage(request, reply.content) : reply.usage;
        if (reply.stopReason === 'refusal')
          faults.record(
            trialId,
            new ClassifiedError('refusal', `model '${request.model}' refused to answer`),
          );
        // The provider's own model id in the reply prices replayed exchanges too.
        return meter.add(trialId, counts, [
          ...(upstreamIds.get(request.model) ?? [request.model]),
          reply.model,
        ]);
      },
      finished: (entry) => requestLog.append(entry),
      failed(trialId: string, error: GatewayError) {
        // A refused model is the agent's doing: the trial's trajectory records it, and the
        // kernel logs it once per turn, however often the agent insists.
        if (error.errorClass !== 'forbidden')
          options.log?.warn(`gateway: trial ${trialId}: ${error.errorClass}: ${error.message}`);
        faults.record(trialId, error);
      },
    }),
  );
  const url = await listeners.listen('127.0.0.1', options.port);
  const names = [...backends.keys()];

  return {
    url,
    models: names,
    inputs: Object.fromEntries(
      [...backends].flatMap(([name, backend]) => (backend.input ? [[name, backend.input]] : [])),
    ),
    async endpoint(trialId, hostAddress, model = names[0]): Promise<ModelEndpoint> {
      if (!model) throw new ClassifiedError('internal', 'the gateway has no models configured');
      if (!backends.has(model))
        throw new ClassifiedError(
          'model',
          `model '${model}' is not one of the experiment's models (${names.join(', ')}); add it under models: or name one of those`,
        );
      const baseUrl = await listeners.listen(hostAddress);
      return { baseUrl, hostBaseUrl: url, token: grants.issue(trialId, model), model };
    },
    focus(trialId, focus) {
      focuses.set(trialId, focus);
    },
    takeUsage: (trialId): Usage => meter.take(trialId),
    takeErrors: (trialId) => faults.take(trialId),
    release(trialId) {
      grants.revoke(trialId);
      focuses.delete(trialId);
      faults.forget(trialId);
    },
    async close() {
      unauthenticated.close();
      await listeners.close();
      await Promise.all([deps.recorder?.flush(), requestLog.flush()]);
    },
  };
}

function isEmpty(reply: ModelReply): boolean {
  const u = reply.usage;
  return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens === 0;
}

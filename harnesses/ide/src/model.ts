import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ClassifiedError, type ModelEndpoint } from '@longhaul/core';
import type { LanguageModel } from 'ai';
import { directProviders, type IdeOptions } from './options.js';

export interface ResolvedModel {
  model: LanguageModel;
  /** What the trajectory names: `<provider>:<id>` or the gateway model name. */
  name: string;
  viaGateway: boolean;
}

type Direct = (typeof directProviders)[number];

/** `anthropic:claude-x` → ['anthropic', 'claude-x']; a bare name is a gateway model. */
export function parseModel(spec: string | undefined): { provider?: Direct; id?: string } {
  if (!spec) return {};
  const colon = spec.indexOf(':');
  const prefix = colon > 0 ? spec.slice(0, colon) : '';
  if ((directProviders as readonly string[]).includes(prefix))
    return { provider: prefix as Direct, id: spec.slice(colon + 1) };
  return { id: spec };
}

function providerKey(
  options: IdeOptions,
  fallback: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const name = options.apiKeyEnv ?? fallback;
  if (!name) return undefined;
  const key = env[name];
  if (!key)
    throw new ClassifiedError(
      'auth',
      `harness 'ide': the environment variable ${name} is not set on the host; it holds the provider key (set apiKeyEnv to use another)`,
    );
  return key;
}

/** Whether the options name a provider directly (so no gateway is needed). */
export function isDirect(options: IdeOptions): boolean {
  return parseModel(options.model).provider !== undefined;
}

/**
 * The language model a session calls: a provider named in the options (keys read from the host's
 * environment, in the runner's process only), else the run's gateway at its host-side URL with
 * the trial's token.
 */
export function resolveModel(
  options: IdeOptions,
  endpoint: ModelEndpoint | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedModel {
  const { provider, id } = parseModel(options.model);
  if (provider === 'anthropic') {
    const apiKey = providerKey(options, 'ANTHROPIC_API_KEY', env);
    return {
      model: createAnthropic({ apiKey, baseURL: options.baseURL })(id!),
      name: options.model!,
      viaGateway: false,
    };
  }
  if (provider === 'openai') {
    const openai = createOpenAI({
      apiKey: providerKey(options, 'OPENAI_API_KEY', env),
      baseURL: options.baseURL,
    });
    return {
      model: options.api === 'responses' ? openai.responses(id!) : openai.chat(id!),
      name: options.model!,
      viaGateway: false,
    };
  }
  if (provider === 'openai-compatible') {
    if (!options.baseURL)
      throw new ClassifiedError('harness', "harness 'ide': openai-compatible models need the baseURL option");
    const compatible = createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: options.baseURL,
      apiKey: providerKey(options, undefined, env),
    });
    return { model: compatible(id!), name: options.model!, viaGateway: false };
  }
  if (!endpoint)
    throw new ClassifiedError(
      'harness',
      "harness 'ide' talks to a model through the run's gateway, but this experiment has no models: add a `models:` section (e.g. `models: { oracle: { backend: oracle } }`) or name a provider in the model option (anthropic:<id>, openai:<id>)",
    );
  const name = id ?? endpoint.model;
  const baseURL = `${endpoint.hostBaseUrl}/v1`;
  if (options.api === 'anthropic')
    return { model: createAnthropic({ baseURL, apiKey: endpoint.token })(name), name, viaGateway: true };
  const openai = createOpenAI({ baseURL, apiKey: endpoint.token });
  return {
    model: options.api === 'responses' ? openai.responses(name) : openai.chat(name),
    name,
    viaGateway: true,
  };
}

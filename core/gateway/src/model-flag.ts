import { isAbsolute, resolve } from 'node:path';
import { ConfigError, closest } from '@longhaul/core';
import type { z } from 'zod';
import type { modelSchema } from './config.js';
import { loadRecording } from './recording/replay.js';

/** Providers `--model PROVIDER/NAME` forwards to, with the variable each one's key is usually in. */
export const providerKeyVariables = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
} as const;

const forms = 'anthropic/NAME, openai/NAME, oracle or replay/RUN_DIR';

/**
 * What `--model` asks for, as a model of `models:`: `anthropic/NAME` and `openai/NAME` forward to
 * the provider (Inspect's convention) with its usual key variable; `oracle` is the gateway's oracle;
 * `replay/RUN_DIR` serves a recording under the model name it was recorded with. The name is the
 * one harnesses ask the gateway for. Bad input is a ConfigError of the file `--model`.
 */
export async function modelFromFlag(
  flag: string,
  cwd: string,
): Promise<{ name: string; config: z.input<typeof modelSchema> }> {
  const refuse = (message: string, suggestion?: string): never => {
    throw new ConfigError([{ file: '--model', message, ...(suggestion ? { suggestion } : {}) }]);
  };
  if (flag === 'oracle') return { name: 'oracle', config: { backend: 'oracle' } };
  const slash = flag.indexOf('/');
  if (slash <= 0 || slash === flag.length - 1) return refuse(`'${flag}' is not a model: expected ${forms}`);
  const provider = flag.slice(0, slash);
  const rest = flag.slice(slash + 1);
  if (provider === 'replay') {
    const from = isAbsolute(rest) ? rest : resolve(cwd, rest);
    const names = [...new Set((await loadRecording(from)).map((exchange) => exchange.model))];
    if (names.length !== 1)
      return refuse(
        names.length === 0
          ? `the recording ${from} holds no exchange to replay`
          : `the recording ${from} holds several models (${names.join(', ')}); name one in models: with backend: replay instead`,
      );
    return { name: names[0]!, config: { backend: 'replay', from } };
  }
  if (!Object.hasOwn(providerKeyVariables, provider)) {
    const known = [...Object.keys(providerKeyVariables), 'oracle', 'replay'];
    return refuse(`unknown provider '${provider}' in '${flag}': expected ${forms}`, closest(provider, known));
  }
  const key = provider as keyof typeof providerKeyVariables;
  return {
    name: rest,
    config: {
      backend: 'passthrough',
      provider: key,
      model: rest,
      apiKeyEnv: providerKeyVariables[key],
    },
  };
}

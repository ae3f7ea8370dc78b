import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError, type Logger, readYaml } from '@longhaul/core';
import { z } from 'zod';
import { missingKeyMessage } from '../check.js';
import {
  type ModelConfig,
  type ScriptedReplyConfig,
  scriptedReplySchema,
  type UpstreamModelConfig,
} from '../config.js';
import { OracleBackend } from '../oracle/backend.js';
import { RecordBackend, Recorder } from '../recording/record.js';
import { loadRecording, ReplayBackend, recordingPath } from '../recording/replay.js';
import type { Backend, ModelInput } from './backend.js';
import { PassthroughBackend } from './passthrough.js';
import { ScriptedBackend } from './scripted.js';

export interface BackendDeps {
  baseDir: string;
  runDir: string;
  env: NodeJS.ProcessEnv;
  log?: Logger;
  /** The file the configuration came from, for error messages. */
  configFile: string;
  /** The run's recording, made by the first `record` model. */
  recorder?: Recorder;
}

/** Reads a provider key from the host environment; it goes nowhere but the provider. */
function providerKey(name: string, config: UpstreamModelConfig, deps: BackendDeps): string {
  const key = deps.env[config.apiKeyEnv];
  if (!key)
    throw new ConfigError([
      {
        file: deps.configFile,
        key: `models.${name}.apiKeyEnv`,
        message: missingKeyMessage(name, config.apiKeyEnv),
      },
    ]);
  return key;
}

const repliesFileSchema = z.union([
  z.array(scriptedReplySchema),
  z.strictObject({ replies: z.array(scriptedReplySchema) }),
]);

export async function loadReplies(file: string): Promise<ScriptedReplyConfig[]> {
  const yaml = await readYaml(file);
  const parsed = repliesFileSchema.safeParse(yaml.value);
  if (!parsed.success) {
    // Report against the list form, the one the README documents, so paths read replies[2].text.
    const asList = z
      .array(scriptedReplySchema)
      .safeParse(Array.isArray(yaml.value) ? yaml.value : (yaml.value as { replies?: unknown })?.replies);
    const issues = asList.success ? parsed.error.issues : asList.error.issues;
    const prefix = Array.isArray(yaml.value) ? [] : ['replies'];
    throw new ConfigError(
      issues.map((issue) => yaml.issue([...prefix, ...(issue.path as (string | number)[])], issue.message)),
    );
  }
  return Array.isArray(parsed.data) ? parsed.data : parsed.data.replies;
}

/** Makes a model's backend; `others` holds the backends made so far, for `record` with `wraps`. */
export async function createBackend(
  name: string,
  config: ModelConfig,
  deps: BackendDeps,
  others: ReadonlyMap<string, Backend>,
): Promise<Backend> {
  const backend = await makeBackend(name, config, deps, others);
  const path = (file: string) => experimentPath(deps, file);
  if (config.backend === 'scripted' && config.file) backend.input = await modelInput(path(config.file));
  if (config.backend === 'replay') backend.input = await modelInput(await recordingPath(path(config.from)));
  return backend;
}

/** A file the experiment names, relative to the experiment's folder. */
const experimentPath = (deps: BackendDeps, file: string) =>
  isAbsolute(file) ? file : resolve(deps.baseDir, file);

async function modelInput(file: string): Promise<ModelInput> {
  return {
    file,
    sha256: createHash('sha256')
      .update(await readFile(file))
      .digest('hex'),
  };
}

async function makeBackend(
  name: string,
  config: ModelConfig,
  deps: BackendDeps,
  others: ReadonlyMap<string, Backend>,
): Promise<Backend> {
  const path = (file: string) => experimentPath(deps, file);
  switch (config.backend) {
    case 'scripted':
      return config.file
        ? new ScriptedBackend(await loadReplies(path(config.file)), config.file)
        : new ScriptedBackend(config.replies ?? [], `models.${name}.replies`);
    case 'oracle':
      return new OracleBackend({ listing: config.listing });
    case 'passthrough':
      return new PassthroughBackend(config, providerKey(name, config, deps));
    case 'record': {
      deps.recorder ??= new Recorder(deps.runDir, [], deps.log);
      if (config.wraps !== undefined) {
        const wrapped = others.get(config.wraps);
        if (!wrapped)
          throw new ConfigError([
            {
              file: deps.configFile,
              key: `models.${name}.wraps`,
              message: `'${config.wraps}' is not a model of models: that can be recorded (not a record model itself)`,
            },
          ]);
        return new RecordBackend(wrapped, deps.recorder);
      }
      // The schema makes provider, model and apiKeyEnv present when `wraps` is absent.
      const upstream = { ...config, backend: 'passthrough' } as UpstreamModelConfig;
      const key = providerKey(name, upstream, deps);
      deps.recorder.addSecret(key);
      return new RecordBackend(new PassthroughBackend(upstream, key), deps.recorder);
    }
    case 'replay': {
      const ignore = config.ignore.map((pattern, index) => {
        try {
          return new RegExp(pattern, 'g');
        } catch (error) {
          throw new ConfigError([
            {
              file: deps.configFile,
              key: `models.${name}.ignore[${index}]`,
              message: `invalid regular expression: ${String(error)}`,
            },
          ]);
        }
      });
      return new ReplayBackend(await loadRecording(path(config.from)), config.from, ignore);
    }
  }
}

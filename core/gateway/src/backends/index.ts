import { isAbsolute, resolve } from 'node:path';
import { ConfigError, type Logger, readYaml } from '@longhaul/core';
import { z } from 'zod';
import { type ModelConfig, type ScriptedReplyConfig, scriptedReplySchema } from '../config.js';
import { OracleBackend } from '../oracle/backend.js';
import type { Backend } from './backend.js';
import { ScriptedBackend } from './scripted.js';

export interface BackendDeps {
  baseDir: string;
  runDir: string;
  env: NodeJS.ProcessEnv;
  log?: Logger;
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

export async function createBackend(name: string, config: ModelConfig, deps: BackendDeps): Promise<Backend> {
  const path = (file: string) => (isAbsolute(file) ? file : resolve(deps.baseDir, file));
  switch (config.backend) {
    case 'scripted':
      return config.file
        ? new ScriptedBackend(await loadReplies(path(config.file)), config.file)
        : new ScriptedBackend(config.replies ?? [], `models.${name}.replies`);
    case 'oracle':
      return new OracleBackend({ listing: config.listing });
    default:
      throw new ConfigError([
        {
          file: '<models>',
          key: `${name}.backend`,
          message: `backend '${config.backend}' is not available yet`,
        },
      ]);
  }
}

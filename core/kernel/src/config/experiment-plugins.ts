import { dirname, resolve } from 'node:path';
import type { DiscoverOptions } from '../plugins/discovery.js';
import { PluginRegistry } from '../plugins/registry.js';
import { ConfigError } from './config-error.js';
import { experimentSchema } from './experiment-schema.js';
import { maxExperimentBytes } from './load-experiment.js';
import { readYaml } from './yaml-file.js';

/**
 * The plugins an experiment file would see, without validating or expanding the rest of it: those
 * installed where it would look (its project, `cwd`, longhaul's install) and the ones it names
 * under `plugins:`, imported. For listing plugins, their options and the schema as the experiment
 * has them. A `plugins:` that is not a list of names, or names a plugin that cannot be loaded, is
 * a ConfigError located in the file.
 */
export async function discoverExperimentPlugins(
  file: string,
  opts: Pick<DiscoverOptions, 'installDir'> & { cwd?: string } = {},
): Promise<PluginRegistry> {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const path = resolve(cwd, file);
  const yaml = await readYaml(path, file, maxExperimentBytes);
  const value = yaml.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError([
      { file, line: 1, column: 1, message: 'an experiment file must be a mapping of keys' },
    ]);
  }
  const raw = value as Record<string, unknown>;
  const plugins = experimentSchema.shape.plugins.safeParse(raw.plugins);
  if (!plugins.success) {
    throw new ConfigError([yaml.issue(['plugins'], 'expected a list of package names or folders')]);
  }
  return PluginRegistry.discover({
    cwd,
    baseDir: resolve(dirname(path), typeof raw.baseDir === 'string' ? raw.baseDir : '.'),
    extra: plugins.data ?? [],
    locateExtra: (index) => yaml.issue(['plugins', index], ''),
    ...(opts.installDir === undefined ? {} : { installDir: opts.installDir }),
  });
}

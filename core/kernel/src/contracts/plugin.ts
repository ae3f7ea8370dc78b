import type { ContainerModuleLoadOptions } from 'inversify';
import type { z } from 'zod';
import type { Task } from './task.js';

/** What a use of a plugin will meet, for its warnings: the experiment's selected tasks. */
export interface PluginUse {
  tasks: readonly (Pick<Task, 'id' | 'source' | 'environment'> & Partial<Pick<Task, 'metadata'>>)[];
}

export const pluginKinds = [
  'harness',
  'environment',
  'script',
  'scorer',
  'memory',
  'source',
  'reporter',
  'executor',
] as const;
export type PluginKind = (typeof pluginKinds)[number];

export type Bind = ContainerModuleLoadOptions['bind'];

/**
 * A plugin: the default export of a package (or an array of them, for packages holding several
 * plugins of one kind). `register` binds the contract of its kind (see `tokens`) in the container
 * it is given: the kernel calls it in a container made for one use of the plugin, with that use's
 * options, so a plugin binds exactly one implementation and never needs names or tags.
 */
export interface PluginDefinition<Options extends z.ZodType = z.ZodType> {
  kind: PluginKind;
  id: string;
  /** One line for `longhaul plugins` and the JSON Schema. */
  description: string;
  options: Options;
  register(bind: Bind, options: z.output<Options>): void;
  /**
   * What a user must know before running this use of the plugin (e.g. that it isolates nothing,
   * or that it ignores the image the tasks were validated in), one line each. `longhaul validate`
   * and `longhaul run` print them as `warning: ...` lines before anything starts.
   */
  warnings?(options: z.output<Options>, use: PluginUse): string[];
}

export function definePlugin<Options extends z.ZodType>(
  definition: PluginDefinition<Options>,
): PluginDefinition<Options> {
  return definition;
}

/** The `"longhaul"` field of a plugin package's package.json, read without importing it. */
export interface PluginManifest {
  plugins: { kind: PluginKind; id: string }[];
}

import type { ContainerModuleLoadOptions } from 'inversify';
import type { z } from 'zod';
import type { Task } from './task.js';

/** What a use of a plugin will meet, for its warnings: the experiment's selected tasks. */
export interface PluginUse {
  tasks: readonly (Pick<Task, 'id' | 'source' | 'environment'> & Partial<Pick<Task, 'metadata'>>)[];
}

/** A problem with a tool call's arguments, at a key path inside them (`[]`: the arguments as a whole). */
export interface ToolInputIssue {
  path: (string | number)[];
  message: string;
  /** A likely fix (the argument name the call probably meant). */
  suggestion?: string;
}

/** A tool a harness offers its model, as `validate` checks a scripted model's calls of it. */
export interface OfferedTool {
  name: string;
  /** What is wrong with `input` as this tool's arguments, checked as the harness checks them; empty when nothing. */
  check(input: unknown): ToolInputIssue[];
}

/** The model a harness asks the run's gateway for, and the tools it offers that model. */
export interface ModelTools {
  /** A model of the experiment's `models:`; undefined for the gateway's default (its first). */
  model?: string;
  tools: OfferedTool[];
  /** More tools may be offered at run time (loaded from modules, servers): other names are not refused. */
  open?: boolean;
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
  /**
   * Harnesses that run their own tool loop over a model of the gateway: that model and the tools
   * it is offered under these options, so that `longhaul validate` can check a scripted model's
   * tool calls (names and arguments) before a run. Undefined when the harness calls no model of
   * the gateway (a provider called directly); harnesses whose tools belong to an agent program
   * they run (Claude Code, Codex) leave it out.
   */
  modelTools?(options: z.output<Options>, use: PluginUse): ModelTools | undefined;
  /**
   * What this use of the plugin guarantees on this host, one line each: for an environment, how
   * its sandboxes are isolated and limited (the user commands run as, namespaces, cgroup limits).
   * `longhaul validate` prints them after the experiment checks out.
   */
  guarantees?(options: z.output<Options>, use: PluginUse): string[];
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

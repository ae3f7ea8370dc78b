import type { PluginDefinition, PluginUse } from '../contracts/plugin.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { type ExperimentConfig, refFields } from './experiment-schema.js';

/**
 * The warnings of every plugin use of an experiment (PluginDefinition.warnings), each once, in
 * the order the fields are written: what validate and run print before anything starts. Every
 * use meets every selected task (conditions are crossed with tasks), so each is given them all.
 */
export function pluginWarnings(
  config: ExperimentConfig,
  registry: PluginRegistry,
  use: PluginUse = { tasks: [] },
): string[] {
  return pluginLines(config, registry, use, 'warnings');
}

/**
 * What every plugin use of an experiment guarantees (PluginDefinition.guarantees: for an
 * environment, the isolation and limits its sandboxes get on this host), each once, in order.
 */
export function pluginGuarantees(
  config: ExperimentConfig,
  registry: PluginRegistry,
  use: PluginUse = { tasks: [] },
): string[] {
  return pluginLines(config, registry, use, 'guarantees');
}

function pluginLines(
  config: ExperimentConfig,
  registry: PluginRegistry,
  use: PluginUse,
  hook: 'warnings' | 'guarantees',
): string[] {
  const lines = new Set<string>();
  for (const { field, kind } of refFields) {
    for (const ref of config[field]) {
      const definition: PluginDefinition | undefined = registry.get(kind, ref.id)?.definition;
      for (const line of definition?.[hook]?.(ref.options, use) ?? []) lines.add(line);
    }
  }
  return [...lines];
}

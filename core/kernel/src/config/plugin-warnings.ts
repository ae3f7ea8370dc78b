import type { PluginUse } from '../contracts/plugin.js';
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
  const warnings = new Set<string>();
  for (const { field, kind } of refFields) {
    for (const ref of config[field]) {
      const definition = registry.get(kind, ref.id)?.definition;
      for (const warning of definition?.warnings?.(ref.options, use) ?? []) warnings.add(warning);
    }
  }
  return [...warnings];
}

import type { PluginRegistry } from '../plugins/registry.js';
import { type ExperimentConfig, refFields } from './experiment-schema.js';

/**
 * The warnings of every plugin use of an experiment (PluginDefinition.warnings), each once, in
 * the order the fields are written: what validate and run print before anything starts.
 */
export function pluginWarnings(config: ExperimentConfig, registry: PluginRegistry): string[] {
  const warnings = new Set<string>();
  for (const { field, kind } of refFields) {
    for (const ref of config[field]) {
      const definition = registry.get(kind, ref.id)?.definition;
      for (const warning of definition?.warnings?.(ref.options) ?? []) warnings.add(warning);
    }
  }
  return [...warnings];
}

import type { ModelTools, PluginUse } from '../contracts/plugin.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { LocatedRef } from './plugin-refs.js';

/** A harness use of the experiment that offers tools to a model of the gateway. */
export interface HarnessModelUse extends ModelTools {
  /** The harness's label, for messages. */
  harness: string;
}

/**
 * The model and tools of every harness use that declares them (PluginDefinition.modelTools), for
 * checking scripted models' tool calls. Every use meets every selected task, so each is given them all.
 */
export function harnessModelUses(
  harnesses: LocatedRef[],
  registry: PluginRegistry,
  use: PluginUse,
): HarnessModelUse[] {
  return harnesses.flatMap(({ ref }) => {
    const declared = registry.get('harness', ref.id)?.definition.modelTools?.(ref.options, use);
    return declared ? [{ ...declared, harness: ref.label }] : [];
  });
}

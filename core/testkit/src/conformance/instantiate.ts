import { type PluginDefinition, pluginToken, tokens } from '@longhaul/core';
import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';

export type ServiceName = 'Run' | 'Trial' | 'SnapshotStore' | 'Gateway' | 'Logger';

/**
 * Makes a plugin the way the kernel does: options parsed with the plugin's schema (so defaults
 * apply and bad options throw), `register` called in a fresh container, and the contract of the
 * plugin's kind resolved from it. `services` are bound first, as the kernel binds its own.
 */
export function instantiatePlugin<T>(
  definition: PluginDefinition,
  options: unknown = {},
  services: Partial<Record<ServiceName, unknown>> = {},
): T {
  const container = new Container();
  for (const [name, value] of Object.entries(services)) {
    container.bind(tokens[name as ServiceName] as ServiceIdentifier<unknown>).toConstantValue(value);
  }
  const parsed = definition.options.parse(options);
  container.load(new ContainerModule(({ bind }) => definition.register(bind, parsed)));
  const token = pluginToken<unknown>(definition.kind);
  return container.get(token) as T;
}

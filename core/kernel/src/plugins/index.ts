export type { ManifestCommand, ManifestPlugin, PluginOrigin } from './candidates.js';
export * from './command-line.js';
export {
  type DeclaredCommand,
  type DeclaredPlugin,
  type DiscoverOptions,
  type LoadedPlugin,
  PluginManifests,
} from './discovery.js';
export * from './option-rows.js';
export * from './registry.js';

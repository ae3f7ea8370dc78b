export type { ManifestCommand, ManifestPlugin, PluginOrigin } from './candidates.js';
export * from './option-rows.js';
export * from './registry.js';

export type { ManifestCommand, ManifestPlugin, PluginOrigin } from './candidates.js';
export * from './command-line.js';
export * from './option-rows.js';
export * from './registry.js';

/**
 * `@longhaul/core/light`: the parts of the kernel that load without its dependencies (no zod,
 * inversify, yaml or diff), for start-up paths such as `longhaul --help` and `longhaul plugins`
 * that must not pay for loading the rest. Everything here is exported by `@longhaul/core` too,
 * from the same modules, so a ConfigError is the same class through either.
 */
export { ConfigError, type ConfigIssue, formatIssue, isConfigError } from './config/config-error.js';
export { type PluginKind, pluginKinds } from './contracts/plugin.js';
export type { ManifestCommand, ManifestPlugin, PluginOrigin } from './plugins/candidates.js';
export { badInputExitCode, configErrorText } from './plugins/command-line.js';
export {
  type DeclaredCommand,
  type DeclaredPlugin,
  type DiscoverOptions,
  PluginManifests,
} from './plugins/discovery.js';
export { defaultRetryStatuses } from './runner/retry-statuses.js';
export { formatColumns } from './text/columns.js';
export { noValue } from './text/outcomes.js';
export {
  regularFiles,
  type SkipReason,
  type WalkEntry,
  type WalkOptions,
  type WalkSkip,
  walkWorkspace,
} from './workspace/walk.js';
export { linkLeaves, WorkspaceHandle } from './workspace/workspace-handle.js';

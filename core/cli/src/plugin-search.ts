import { PluginRegistry } from '@longhaul/core';

/**
 * Where commands look for plugins besides the working directory and an experiment's project.
 * `installDir` undefined means beside longhaul's own install (the kernel's default); tests that
 * want to see only a fixture project set it to null through `main`'s options.
 */
export const pluginSearch: { installDir?: string | null } = {};

/** The `installDir` option for discovery and `loadExperiment`, when one is set. */
export function installDirOption(): { installDir?: string | null } {
  return pluginSearch.installDir === undefined ? {} : { installDir: pluginSearch.installDir };
}

/** Plugins found from the working directory (and longhaul's install); nothing is imported yet. */
export function discoverPlugins(): Promise<PluginRegistry> {
  return PluginRegistry.discover({ cwd: process.cwd(), ...installDirOption() });
}

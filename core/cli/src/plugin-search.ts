import type { PluginRegistry } from '@longhaul/core';
import { PluginManifests } from '@longhaul/core/light';

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

/**
 * What the installed packages' manifests declare, found from the working directory (and
 * longhaul's install) without loading the kernel: for `--help` and `longhaul plugins`.
 */
export function discoverManifests(): Promise<PluginManifests> {
  return PluginManifests.discover({ cwd: process.cwd(), ...installDirOption() });
}

/**
 * Plugins found from the working directory (and longhaul's install), ready to `load`; given an
 * experiment file, those it would see: its project's too, and the ones its `plugins:` names.
 */
export async function discoverPlugins(experiment?: string): Promise<PluginRegistry> {
  const { PluginRegistry, discoverExperimentPlugins } = await import('@longhaul/core');
  if (experiment !== undefined) return discoverExperimentPlugins(experiment, installDirOption());
  return PluginRegistry.discover({ cwd: process.cwd(), ...installDirOption() });
}

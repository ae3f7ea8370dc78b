import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { PluginKind } from '@longhaul/core/light';
import { installDirOption } from './plugin-search.js';

/** Folders never searched for experiments (nor those whose name starts with a dot): installed packages, builds, runs. */
const skipped = new Set(['node_modules', 'dist', 'runs']);

/** At most this many experiment files are opened: a hint must not make a big folder slow. */
const maxFiles = 20;

/**
 * YAML files in `dir` and its direct subfolders that name plugins under `plugins:` (a plugin's
 * own `example/experiment.yaml` is one folder down from where its README says to run it).
 */
async function experimentsNaming(dir: string): Promise<string[]> {
  const folders = [dir];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory() && !entry.name.startsWith('.') && !skipped.has(entry.name))
      folders.push(join(dir, entry.name));
  }
  const found: string[] = [];
  for (const folder of folders) {
    const names = (await readdir(folder).catch(() => [] as string[])).filter((name) => /\.ya?ml$/.test(name));
    for (const name of names.sort()) {
      if (found.length >= maxFiles) return found;
      const file = join(folder, name);
      const size = await stat(file).then(
        (s) => (s.isFile() ? s.size : Number.POSITIVE_INFINITY),
        () => Number.POSITIVE_INFINITY,
      );
      if (size > 1024 * 1024) continue;
      const text = await readFile(file, 'utf8').catch(() => '');
      if (/^plugins\s*:/m.test(text)) found.push(file);
    }
  }
  return found;
}

/**
 * The experiment files near the working directory whose `plugins:` loads the plugin `id` (of
 * `kind`, when given), relative to the working directory: where `plugins show` says to look when
 * nothing installed has it. Experiments that cannot be read or whose plugins cannot be loaded are
 * passed over: this is a hint, and `--experiment` reports their problems.
 */
export async function experimentsLoading(id: string, kind?: PluginKind): Promise<string[]> {
  const cwd = process.cwd();
  const { discoverExperimentPlugins } = await import('@longhaul/core');
  const loading: string[] = [];
  for (const file of await experimentsNaming(cwd)) {
    const registry = await discoverExperimentPlugins(file, installDirOption()).catch(() => undefined);
    const named = registry
      ?.declared(kind)
      .some((plugin) => plugin.id === id && plugin.origin === 'plugins-entry');
    if (named) loading.push(relative(cwd, file));
  }
  return loading;
}

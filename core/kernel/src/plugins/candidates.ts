import { readdirSync, readFileSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { ConfigIssue } from '../config/config-error.js';
import { type PluginKind, pluginKinds } from '../contracts/plugin.js';
import { type PackageJson, packageEntry } from './package-entry.js';

export type IssueLocation = Omit<ConfigIssue, 'message' | 'suggestion'>;

/**
 * Where a candidate was found: named under the experiment's `plugins:`, installed in the
 * experiment's project, in the working directory, or next to longhaul itself.
 */
export type PluginOrigin = 'plugins-entry' | 'project' | 'cwd' | 'install';

/** A plugin a package declares in its manifest, known before anything is imported. */
export interface ManifestPlugin {
  kind: PluginKind;
  id: string;
  /** The entry's own description, else the package's. */
  description?: string;
}

/** A CLI command a package declares in its manifest; its code is the package's "./commands" export. */
export interface ManifestCommand {
  name: string;
  description: string;
}

/** A package or folder that should hold plugins, found but not yet imported. */
export interface Candidate {
  packageName: string;
  version: string;
  /** Real path of the package or folder. */
  dir: string;
  /** The module to import. */
  entry: string;
  /** What package.json's "longhaul" field declares; absent for local folders without one. */
  manifest?: ManifestPlugin[];
  /** The commands the "longhaul" field declares, and the module ("./commands" export) holding them. */
  commands?: { entries: ManifestCommand[]; module: string };
  /** Where to point errors about this candidate. */
  where: IssueLocation;
  origin: PluginOrigin;
}

type Found = { candidate: Candidate } | { issue: ConfigIssue };

/**
 * Plugin packages in every node_modules from `start` up to the file system root. A package name
 * seen in a nearer node_modules shadows the same name further up, as Node's own resolution does.
 */
export async function scanNodeModules(
  start: string,
  origin: PluginOrigin,
  seen: { names: Set<string>; dirs: Set<string> },
  conditions: readonly string[],
): Promise<Found[]> {
  const found: Found[] = [];
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    // A folder scanned from an earlier start (and all above it) holds nothing new.
    if (seen.dirs.has(dir)) return found;
    seen.dirs.add(dir);
    const names = listPackages(join(dir, 'node_modules')).filter((name) => !seen.names.has(name));
    for (const name of names) {
      const result = await readCandidate(join(dir, 'node_modules', name), origin, undefined, conditions);
      if (!result) continue;
      if ('candidate' in result) seen.names.add(result.candidate.packageName);
      found.push(result);
    }
    if (dirname(dir) === dir) return found;
  }
}

/**
 * An entry of an experiment's `plugins:` list: a path (starting with `.` or `/`) relative to the
 * experiment's directory, or a package name looked up in node_modules above that directory and
 * then above `cwd` (falling back to a folder of that name next to the experiment).
 */
export async function resolveExtra(
  entry: string,
  opts: { baseDir: string; cwd: string; where: IssueLocation; conditions: readonly string[] },
): Promise<Found> {
  const fail = (message: string): Found => ({ issue: { ...opts.where, message } });
  const asPath = resolve(opts.baseDir, entry);
  if (!entry.startsWith('.') && !isAbsolute(entry)) {
    for (const start of [opts.baseDir, opts.cwd]) {
      for (let dir = resolve(start); ; dir = dirname(dir)) {
        const packageDir = join(dir, 'node_modules', entry);
        if (await exists(join(packageDir, 'package.json'))) {
          return (
            (await readCandidate(packageDir, 'plugins-entry', opts.where, opts.conditions, true)) ??
            fail(`cannot read package '${entry}'`)
          );
        }
        if (dirname(dir) === dir) break;
      }
    }
    if (!(await exists(asPath))) {
      return fail(
        `plugin package '${entry}' is not installed (no node_modules/${entry} above ${opts.baseDir}) and there is no folder ${asPath}`,
      );
    }
  }
  const info = await stat(asPath).catch(() => undefined);
  if (!info) return fail(`plugin path does not exist: ${asPath}`);
  if (info.isFile()) {
    const dir = await realpath(dirname(asPath));
    return {
      candidate: {
        packageName: entry,
        version: '0.0.0',
        dir,
        entry: await realpath(asPath),
        where: opts.where,
        origin: 'plugins-entry',
      },
    };
  }
  if (await exists(join(asPath, 'package.json'))) {
    const found = await readCandidate(asPath, 'plugins-entry', opts.where, opts.conditions, true);
    if (found && 'candidate' in found && !found.candidate.packageName) found.candidate.packageName = entry;
    return found ?? fail(`cannot read ${join(asPath, 'package.json')}`);
  }
  const index = join(asPath, 'index.js');
  if (!(await exists(index)))
    return fail(`plugin folder ${asPath} has neither a package.json nor an index.js`);
  return {
    candidate: {
      packageName: entry,
      version: '0.0.0',
      dir: await realpath(asPath),
      entry: await realpath(index),
      where: opts.where,
      origin: 'plugins-entry',
    },
  };
}

/**
 * Names of the packages in a node_modules. Listing and reading manifests is synchronous: a scan
 * reads hundreds of small files, and each asynchronous read is several trips through the thread
 * pool (most of a `longhaul run`'s discovery time, and far more on a busy machine).
 */
function listPackages(nodeModules: string): string[] {
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  const entries = list(nodeModules);
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      const scoped = list(join(nodeModules, entry));
      names.push(...scoped.filter((name) => !name.startsWith('.')).map((name) => `${entry}/${name}`));
    } else names.push(entry);
  }
  return names;
}

/**
 * Reads a package's package.json. Packages without a "longhaul" field are not plugins and yield
 * nothing unless `explicit` (named in an experiment), where any folder with an entry module counts.
 */
async function readCandidate(
  dir: string,
  origin: PluginOrigin,
  where: IssueLocation | undefined,
  conditions: readonly string[],
  explicit = false,
): Promise<Found | undefined> {
  const file = join(dir, 'package.json');
  let pkg: PackageJson;
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
  } catch (error) {
    // A dangling workspace link or an unrelated broken package is not ours to report.
    if (!explicit) return undefined;
    return { issue: { ...(where ?? { file }), message: `cannot read ${file}: ${(error as Error).message}` } };
  }
  if (pkg.longhaul === undefined && !explicit) return undefined;
  const location = where ?? { file };
  const real = await realpath(dir);
  const candidate: Candidate = {
    packageName: pkg.name ?? '',
    version: pkg.version ?? '0.0.0',
    dir: real,
    entry: packageEntry(real, pkg, conditions),
    where: location,
    origin,
  };
  if (pkg.longhaul !== undefined) {
    const manifest = parseManifest(pkg.longhaul, pkg.description);
    if (!manifest) {
      return {
        issue: {
          ...location,
          key: location.key ?? 'longhaul',
          message: `package '${candidate.packageName}' has an invalid "longhaul" field in ${file}: expected {"plugins": [{"kind": "<${pluginKinds.join('|')}>", "id": "<id>"}], "commands": [{"name": "<name>", "description": "<text>"}]} (either list may be left out)`,
        },
      };
    }
    if (manifest.plugins.length > 0) candidate.manifest = manifest.plugins;
    if (manifest.commands.length > 0) {
      candidate.commands = {
        entries: manifest.commands,
        module: packageEntry(real, pkg, conditions, './commands'),
      };
    }
  }
  return { candidate };
}

/**
 * `{"plugins": [{kind, id, description?}], "commands": [{name, description}]}` (either list may be
 * absent, not both), or the single-plugin shorthand `{kind, id}`.
 */
function parseManifest(
  field: unknown,
  packageDescription: string | undefined,
): { plugins: ManifestPlugin[]; commands: ManifestCommand[] } | undefined {
  const object = (field ?? {}) as { plugins?: unknown; commands?: unknown; kind?: unknown };
  const rawPlugins = object.plugins ?? (object.kind === undefined && object.commands ? [] : [field]);
  const rawCommands = object.commands ?? [];
  if (!Array.isArray(rawPlugins) || !Array.isArray(rawCommands)) return undefined;
  if (rawPlugins.length === 0 && rawCommands.length === 0) return undefined;
  const plugins: ManifestPlugin[] = [];
  for (const item of rawPlugins) {
    const { kind, id, description } = (item ?? {}) as Record<string, unknown>;
    if (!pluginKinds.includes(kind as PluginKind) || typeof id !== 'string' || !id) return undefined;
    const text = typeof description === 'string' ? description : packageDescription;
    plugins.push({ kind: kind as PluginKind, id, ...(text === undefined ? {} : { description: text }) });
  }
  const commands: ManifestCommand[] = [];
  for (const item of rawCommands) {
    const { name, description } = (item ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(name)) return undefined;
    commands.push({ name, description: typeof description === 'string' ? description : '' });
  }
  return { plugins, commands };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

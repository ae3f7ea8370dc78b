import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, type ConfigIssue } from '../config/config-error.js';
import { type PluginDefinition, type PluginKind, pluginKinds } from '../contracts/plugin.js';
import {
  type Candidate,
  type IssueLocation,
  type ManifestCommand,
  type PluginOrigin,
  resolveExtra,
  scanNodeModules,
} from './candidates.js';

// This module imports neither inversify nor zod: `longhaul --help` reads manifests through it
// without loading the rest of the kernel.

export interface LoadedPlugin {
  definition: PluginDefinition;
  packageName: string;
  version: string;
  /** Real path of the package (or local folder) the plugin came from. */
  dir: string;
}

/** A plugin known from a package's manifest, before (or without) importing its code. */
export interface DeclaredPlugin {
  kind: PluginKind;
  id: string;
  description: string;
  packageName: string;
  version: string;
  dir: string;
  origin: PluginOrigin;
}

/** A CLI command a package declares, to be imported from `module` only when it runs. */
export interface DeclaredCommand extends ManifestCommand {
  packageName: string;
  dir: string;
  module: string;
  origin: PluginOrigin;
}

/** An installed package that could not be loaded, and the plugins it declares. */
export interface PluginProblem {
  issue: ConfigIssue;
  plugins: { kind: PluginKind; id: string }[];
}

export type Want = Pick<PluginDefinition, 'kind' | 'id'>;

export interface DiscoverOptions {
  /** node_modules are scanned from here upwards. */
  cwd: string;
  /** Package names or paths (relative to `baseDir`) of plugins named by an experiment. */
  extra?: string[];
  /**
   * The experiment's directory, which relative `extra` paths start from; its node_modules (and
   * those above it) are scanned before `cwd`'s. Defaults to `cwd`.
   */
  baseDir?: string;
  /** Where `extra[index]` is written, so errors about it point into the experiment file. */
  locateExtra?: (index: number) => IssueLocation;
  /** Export conditions used to pick a package's entry module. */
  conditions?: string[];
  /**
   * Where longhaul itself is installed: its node_modules (and those above) are scanned last, so
   * plugins installed beside the CLI are found from any directory. Defaults to the kernel
   * package's own folder; `null` scans only the experiment's project and `cwd`.
   */
  installDir?: string | null;
}

/** What discovery found: the `extra` plugins imported, the installed ones from their manifests. */
export interface FoundPlugins {
  loaded: LoadedPlugin[];
  problems: PluginProblem[];
  /** Installed packages not imported yet, with the manifest entries they alone declare. */
  pending: Candidate[];
  declared: DeclaredPlugin[];
  commands: DeclaredCommand[];
}

/**
 * When the kernel itself runs from its TypeScript sources (tests), plugins are loaded from theirs
 * too, through the workspace packages' "@longhaul/source" export condition.
 */
const defaultConditions = import.meta.url.endsWith('.ts')
  ? ['@longhaul/source', 'import', 'node', 'default']
  : ['import', 'node', 'default'];

/** The kernel package's folder (this file is src/plugins/discovery.ts or dist/plugins/discovery.js). */
const kernelDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Reads the manifests of installed packages (the experiment's project, then `cwd`, then
 * longhaul's own install) and imports the plugins the experiment names under `plugins:` (`extra`).
 * A plugin named there that cannot be loaded is an error (a ConfigError listing all of them,
 * located by `locateExtra`). An installed package whose manifest is invalid, or a kind and id two
 * installed packages declare, does not stop the others: its plugins are left out and the problem
 * is kept.
 */
export async function findPlugins(opts: DiscoverOptions): Promise<FoundPlugins> {
  const conditions = opts.conditions ?? defaultConditions;
  const cwd = resolve(opts.cwd);
  const baseDir = resolve(cwd, opts.baseDir ?? cwd);
  const issues: ConfigIssue[] = [];
  const problems: PluginProblem[] = [];
  const installed: Candidate[] = [];
  const seen = { names: new Set<string>(), dirs: new Set<string>() };
  const installDir = opts.installDir === undefined ? kernelDir : opts.installDir;
  const roots: [string, PluginOrigin][] = [
    ...(baseDir === cwd ? [] : [[baseDir, 'project'] as [string, PluginOrigin]]),
    [cwd, 'cwd'],
    ...(installDir === null ? [] : [[installDir, 'install'] as [string, PluginOrigin]]),
  ];
  for (const [root, origin] of roots) {
    for (const found of await scanNodeModules(root, origin, seen, conditions)) {
      if ('issue' in found) problems.push({ issue: found.issue, plugins: [] });
      else installed.push(found.candidate);
    }
  }
  const extras = await Promise.all(
    (opts.extra ?? []).map((entry, index) =>
      resolveExtra(entry, {
        baseDir,
        cwd,
        conditions,
        where: opts.locateExtra?.(index) ?? { file: baseDir, key: `plugins[${index}]` },
      }),
    ),
  );
  const explicit: Candidate[] = [];
  for (const found of extras) {
    if ('issue' in found) issues.push(found.issue);
    else if (!explicit.some((candidate) => candidate.dir === found.candidate.dir))
      explicit.push(found.candidate);
  }
  // A plugin named in the experiment that is installed as well is the same package: load it once.
  const others = installed.filter((candidate) => !explicit.some((e) => e.dir === candidate.dir));

  const loaded = await Promise.all(explicit.map((candidate) => importCandidate(candidate)));
  const byKey = new Map<string, LoadedPlugin>();
  for (const [index, result] of loaded.entries()) {
    const candidate = explicit[index]!;
    if ('issues' in result) {
      issues.push(...result.issues);
      continue;
    }
    for (const definition of result.definitions) {
      const other = byKey.get(keyOf(definition));
      if (other) issues.push(twoPackages(definition, other, candidate));
      else byKey.set(keyOf(definition), loadedFrom(candidate, definition));
    }
  }
  // Nearer plugins shadow farther ones of the same kind and id: the experiment's own, then its
  // project's, the working directory's, longhaul's install (naming a folder under plugins: is
  // how a changed copy of an installed plugin is tried). Two found at the same place are ambiguous.
  const pending: Candidate[] = [];
  const declaredBy = new Map<string, Candidate>();
  const ambiguous = new Set<string>();
  for (const candidate of others) {
    const manifest = (candidate.manifest ?? []).filter((entry) => {
      const other = declaredBy.get(keyOf(entry));
      return !byKey.has(keyOf(entry)) && (!other || other.origin === candidate.origin);
    });
    if (candidate.manifest && manifest.length === 0) continue;
    for (const entry of manifest) {
      const key = keyOf(entry);
      const other = declaredBy.get(key);
      if (other) {
        problems.push({ issue: twoPackages(entry, other, candidate), plugins: [entry] });
        ambiguous.add(key);
      } else declaredBy.set(key, candidate);
    }
    pending.push({ ...candidate, manifest });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  const declared: DeclaredPlugin[] = [
    ...[...byKey.values()].map((plugin) => declaredOf(plugin)),
    ...pending.flatMap((candidate) =>
      (candidate.manifest ?? [])
        .filter((entry) => !ambiguous.has(keyOf(entry)))
        .map((entry) => ({
          kind: entry.kind,
          id: entry.id,
          description: entry.description ?? '',
          packageName: candidate.packageName,
          version: candidate.version,
          dir: candidate.dir,
          origin: candidate.origin,
        })),
    ),
  ];
  const commands = [...explicit, ...pending].flatMap((candidate) =>
    (candidate.commands?.entries ?? []).map((command) => ({
      ...command,
      packageName: candidate.packageName,
      dir: candidate.dir,
      module: candidate.commands!.module,
      origin: candidate.origin,
    })),
  );
  return {
    loaded: [...byKey.values()],
    problems,
    pending: pending.map((candidate) => ({
      ...candidate,
      manifest: candidate.manifest?.filter((entry) => !ambiguous.has(keyOf(entry))),
    })),
    declared,
    commands,
  };
}

/**
 * The plugins and commands installed packages declare, read from their manifests: what
 * `longhaul --help` and `longhaul plugins` show. Nothing installed is imported;
 * `PluginRegistry` adds importing and building plugins.
 */
export class PluginManifests {
  protected readonly found: FoundPlugins;

  protected constructor(found: FoundPlugins) {
    this.found = found;
  }

  /** Finds plugins as `findPlugins` does; see `DiscoverOptions`. */
  static async discover(opts: DiscoverOptions): Promise<PluginManifests> {
    return new PluginManifests(await findPlugins(opts));
  }

  /**
   * Why installed packages could not be loaded; with `kind` and `id`, only the problems of
   * packages that declare (or define) that plugin.
   */
  problems(kind?: PluginKind, id?: string): ConfigIssue[] {
    return this.found.problems
      .filter(
        (problem) =>
          kind === undefined ||
          problem.plugins.some((p) => p.kind === kind && (id === undefined || p.id === id)),
      )
      .map((problem) => problem.issue);
  }

  /** Every plugin found, loaded or not, from manifests; sorted by kind and id. */
  declared(kind?: PluginKind): DeclaredPlugin[] {
    return sortByKindAndId(
      this.found.declared.filter((plugin) => kind === undefined || plugin.kind === kind),
      (plugin) => plugin,
    );
  }

  /** The CLI commands installed packages declare, by name. */
  commands(): DeclaredCommand[] {
    return [...this.found.commands].sort((a, b) => a.name.localeCompare(b.name));
  }
}

export function sortByKindAndId<T>(items: T[], of: (item: T) => Want): T[] {
  return items.sort(
    (a, b) =>
      pluginKinds.indexOf(of(a).kind) - pluginKinds.indexOf(of(b).kind) || of(a).id.localeCompare(of(b).id),
  );
}

export function keyOf(definition: Want): string {
  return `${definition.kind}:${definition.id}`;
}

/** A loaded plugin as `declared` lists it. */
export function declaredOf(plugin: LoadedPlugin): DeclaredPlugin {
  return {
    kind: plugin.definition.kind,
    id: plugin.definition.id,
    description: plugin.definition.description,
    packageName: plugin.packageName,
    version: plugin.version,
    dir: plugin.dir,
    origin: 'plugins-entry',
  };
}

export function loadedFrom(candidate: Candidate, definition: PluginDefinition): LoadedPlugin {
  const { packageName, version, dir } = candidate;
  return { definition, packageName, version, dir };
}

function twoPackages(
  what: Want,
  first: Pick<LoadedPlugin, 'packageName' | 'dir'>,
  second: Candidate,
): ConfigIssue {
  return {
    ...second.where,
    message: `${what.kind} '${what.id}' is defined by two packages: '${first.packageName}' (${first.dir}) and '${second.packageName}' (${second.dir}); uninstall or rename one`,
  };
}

/** Imports a candidate's entry module and checks its default export against its manifest. */
export async function importCandidate(
  candidate: Candidate,
): Promise<{ definitions: PluginDefinition[] } | { issues: ConfigIssue[] }> {
  const fail = (message: string) => ({ issues: [{ ...candidate.where, message }] });
  const name = `'${candidate.packageName}'`;
  if (!existsSync(candidate.entry)) {
    return fail(
      `plugin package ${name} has no entry module at ${candidate.entry} (is it built? otherwise fix "exports" or "main" in its package.json)`,
    );
  }
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(candidate.entry).href)) as { default?: unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return fail(`plugin package ${name} failed to import (${candidate.entry}): ${reason}`);
  }
  if (module.default === undefined) {
    return fail(
      `plugin package ${name} has no default export (${candidate.entry}); export default definePlugin({...}) or an array of them`,
    );
  }
  const exported = Array.isArray(module.default) ? module.default : [module.default];
  const definitions: PluginDefinition[] = [];
  for (const [index, value] of exported.entries()) {
    const problem = definitionProblem(value);
    if (problem)
      return fail(
        `the default export of ${name}${Array.isArray(module.default) ? `[${index}]` : ''} is not a plugin definition: ${problem}`,
      );
    definitions.push(value as PluginDefinition);
  }
  if (definitions.length === 0) return fail(`plugin package ${name} exports an empty list of plugins`);
  if (candidate.manifest) {
    const declared = new Set(candidate.manifest.map(keyOf));
    const exportedKeys = new Set(definitions.map(keyOf));
    const issues = [
      ...[...declared]
        .filter((key) => !exportedKeys.has(key))
        .map(
          (key) =>
            `package ${name} declares ${key.replace(':', " '")}' in package.json "longhaul" but does not export it`,
        ),
      ...[...exportedKeys]
        .filter((key) => !declared.has(key))
        .map(
          (key) =>
            `package ${name} exports ${key.replace(':', " '")}' that its package.json "longhaul" field does not declare`,
        ),
    ];
    if (issues.length > 0) return { issues: issues.map((message) => ({ ...candidate.where, message })) };
  }
  return { definitions };
}

function definitionProblem(value: unknown): string | undefined {
  if (!value || typeof value !== 'object')
    return `expected an object, got ${value === null ? 'null' : typeof value}`;
  const definition = value as Partial<PluginDefinition>;
  if (!pluginKinds.includes(definition.kind as PluginKind)) {
    return `kind must be one of ${pluginKinds.join(', ')} (got ${JSON.stringify(definition.kind)})`;
  }
  if (typeof definition.id !== 'string' || !/^[A-Za-z0-9._-]+$/.test(definition.id)) {
    return `id must be a non-empty string of letters, digits, '.', '_' or '-' (got ${JSON.stringify(definition.id)})`;
  }
  if (typeof definition.register !== 'function')
    return `${definition.kind} '${definition.id}' has no register(bind, options) function`;
  if (typeof (definition.options as { safeParse?: unknown })?.safeParse !== 'function') {
    return `${definition.kind} '${definition.id}' has no zod schema in 'options'`;
  }
  return undefined;
}

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';
import { ConfigError, type ConfigIssue } from '../config/config-error.js';
import { type PluginDefinition, type PluginKind, pluginKinds } from '../contracts/plugin.js';
import { tokens } from '../contracts/tokens.js';
import type { PluginRef } from '../contracts/trial.js';
import {
  type Candidate,
  type IssueLocation,
  type ManifestCommand,
  type PluginOrigin,
  resolveExtra,
  scanNodeModules,
} from './candidates.js';

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
interface PluginProblem {
  issue: ConfigIssue;
  plugins: { kind: PluginKind; id: string }[];
}

type Want = Pick<PluginDefinition, 'kind' | 'id'>;

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

const kindTokens: Record<PluginKind, ServiceIdentifier<unknown>> = {
  harness: tokens.Harness,
  environment: tokens.Environment,
  script: tokens.Script,
  memory: tokens.Memory,
  scorer: tokens.Scorer,
  reporter: tokens.Reporter,
  source: tokens.Source,
  executor: tokens.Executor,
};

/** The contract token a plugin of `kind` binds. */
export function pluginToken<T>(kind: PluginKind): ServiceIdentifier<T> {
  return kindTokens[kind] as ServiceIdentifier<T>;
}

/**
 * When the kernel itself runs from its TypeScript sources (tests), plugins are loaded from theirs
 * too, through the workspace packages' "@longhaul/source" export condition.
 */
const defaultConditions = import.meta.url.endsWith('.ts')
  ? ['@longhaul/source', 'import', 'node', 'default']
  : ['import', 'node', 'default'];

/** The kernel package's folder (this file is src/plugins/registry.ts or dist/plugins/registry.js). */
const kernelDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Every plugin an experiment can name: installed plugin packages plus the experiment's own.
 * Discovery reads package manifests only; a package's code is imported when one of its plugins is
 * asked for (`load`), so listing plugins or starting an experiment imports only what is used.
 */
export class PluginRegistry {
  readonly #plugins = new Map<string, LoadedPlugin>();

  readonly #problems: PluginProblem[];

  /** Installed packages not imported yet, each under every key its manifest declares. */
  readonly #pending = new Map<string, Candidate>();

  readonly #declared: DeclaredPlugin[];

  readonly #commands: DeclaredCommand[];

  private constructor(
    plugins: LoadedPlugin[],
    problems: PluginProblem[] = [],
    pending: Candidate[] = [],
    declared: DeclaredPlugin[] = [],
    commands: DeclaredCommand[] = [],
  ) {
    for (const plugin of plugins) this.#plugins.set(keyOf(plugin.definition), plugin);
    for (const candidate of pending) {
      for (const entry of candidate.manifest ?? []) this.#pending.set(keyOf(entry), candidate);
    }
    this.#problems = problems;
    this.#declared = declared;
    this.#commands = commands;
  }

  /**
   * Finds plugins: reads the manifests of installed packages (the experiment's project, then
   * `cwd`, then longhaul's own install) and imports the plugins the experiment names under
   * `plugins:` (`extra`). A plugin named there that cannot be loaded is an error (a ConfigError
   * listing all of them, located by `locateExtra`). An installed package whose manifest is invalid,
   * or a kind and id two installed packages declare, does not stop the others: its plugins are
   * left out and the problem is kept (see `problems`), so that it is reported where such a plugin
   * is used and by `longhaul plugins`. Installed packages are imported by `load`.
   */
  static async discover(opts: DiscoverOptions): Promise<PluginRegistry> {
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
      ...[...byKey.values()].map((plugin) => ({
        kind: plugin.definition.kind,
        id: plugin.definition.id,
        description: plugin.definition.description,
        packageName: plugin.packageName,
        version: plugin.version,
        dir: plugin.dir,
        origin: 'plugins-entry' as const,
      })),
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
    return new PluginRegistry(
      [...byKey.values()],
      problems,
      pending.map((candidate) => ({
        ...candidate,
        manifest: candidate.manifest?.filter((entry) => !ambiguous.has(keyOf(entry))),
      })),
      declared,
      commands,
    );
  }

  /**
   * Imports the installed packages that declare the given plugins (every installed package when
   * `wanted` is 'all'). A package that cannot be loaded (fails to import, is not built, exports no
   * plugin or not the plugins its manifest declares) is left out and its problem kept, to be
   * reported where one of its plugins is used.
   */
  async load(wanted: Want[] | 'all'): Promise<this> {
    const candidates = new Set<Candidate>();
    if (wanted === 'all') for (const candidate of this.#pending.values()) candidates.add(candidate);
    else {
      for (const want of wanted) {
        const candidate = this.#pending.get(keyOf(want));
        if (candidate) candidates.add(candidate);
      }
    }
    const results = await Promise.all(
      [...candidates].map(async (candidate) => ({ candidate, result: await importCandidate(candidate) })),
    );
    for (const { candidate, result } of results) {
      for (const entry of candidate.manifest ?? []) this.#pending.delete(keyOf(entry));
      if ('issues' in result) {
        this.#problems.push(...result.issues.map((issue) => ({ issue, plugins: candidate.manifest ?? [] })));
        continue;
      }
      for (const definition of result.definitions) {
        this.#plugins.set(keyOf(definition), loadedFrom(candidate, definition));
      }
    }
    return this;
  }

  /**
   * Why installed packages could not be loaded; with `kind` and `id`, only the problems of
   * packages that declare (or define) that plugin.
   */
  problems(kind?: PluginKind, id?: string): ConfigIssue[] {
    return this.#problems
      .filter(
        (problem) =>
          kind === undefined ||
          problem.plugins.some((p) => p.kind === kind && (id === undefined || p.id === id)),
      )
      .map((problem) => problem.issue);
  }

  /** A registry of the given plugins, without discovery (tests, embedding). */
  static of(plugins: LoadedPlugin[]): PluginRegistry {
    return new PluginRegistry(plugins);
  }

  /** The plugin `kind`/`id` if it is loaded (see `load`). */
  get(kind: PluginKind, id: string): LoadedPlugin | undefined {
    return this.#plugins.get(`${kind}:${id}`);
  }

  /** Loaded plugins sorted by kind (in `pluginKinds` order) and id. */
  list(kind?: PluginKind): LoadedPlugin[] {
    return sortByKindAndId(
      [...this.#plugins.values()].filter((plugin) => kind === undefined || plugin.definition.kind === kind),
      (plugin) => plugin.definition,
    );
  }

  /** Every plugin found, loaded or not, from manifests; sorted by kind and id. */
  declared(kind?: PluginKind): DeclaredPlugin[] {
    const declared = this.#declared.filter((plugin) => kind === undefined || plugin.kind === kind);
    const keys = new Set(declared.map(keyOf));
    // Plugins given to `of` have no manifest entry.
    const extra = this.list(kind)
      .filter((plugin) => !keys.has(keyOf(plugin.definition)))
      .map((plugin) => ({
        kind: plugin.definition.kind,
        id: plugin.definition.id,
        description: plugin.definition.description,
        packageName: plugin.packageName,
        version: plugin.version,
        dir: plugin.dir,
        origin: 'plugins-entry' as const,
      }));
    return sortByKindAndId([...declared, ...extra], (plugin) => plugin);
  }

  /** The CLI commands installed packages declare, by name. */
  commands(): DeclaredCommand[] {
    return [...this.#commands].sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Builds the plugin named by `ref` in a child container of `parent` (so it can `ctx.get` the
   * services bound there), with its options parsed by the plugin's schema.
   */
  instantiate<T>(parent: Container, kind: PluginKind, ref: Pick<PluginRef, 'id'> & Partial<PluginRef>): T {
    const plugin = this.get(kind, ref.id);
    if (!plugin) {
      const known = this.list(kind).map((p) => p.definition.id);
      throw new Error(`no ${kind} plugin '${ref.id}' is loaded (loaded: ${known.join(', ') || 'none'})`);
    }
    const parsed = plugin.definition.options.safeParse(ref.options ?? {});
    if (!parsed.success) {
      throw new ConfigError(
        parsed.error.issues.map((issue) => ({
          file: `${kind} '${ref.id}'`,
          key: ['options', ...issue.path].join('.'),
          message: issue.message,
        })),
      );
    }
    const container = new Container({ parent });
    container.load(new ContainerModule(({ bind }) => plugin.definition.register(bind, parsed.data)));
    return container.get<T>(pluginToken<T>(kind));
  }
}

function sortByKindAndId<T>(items: T[], of: (item: T) => Want): T[] {
  return items.sort(
    (a, b) =>
      pluginKinds.indexOf(of(a).kind) - pluginKinds.indexOf(of(b).kind) || of(a).id.localeCompare(of(b).id),
  );
}

function loadedFrom(candidate: Candidate, definition: PluginDefinition): LoadedPlugin {
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

/**
 * Builds the plugin `id` (with its default options, or `options`) outside any run, for commands
 * such as `prune` and `worker`: it gets no run, trial or snapshot store.
 */
export function standalonePlugin<T>(
  registry: PluginRegistry,
  kind: PluginKind,
  id: string,
  options?: Record<string, unknown>,
): T {
  return registry.instantiate<T>(new Container(), kind, { id, options });
}

function keyOf(definition: Pick<PluginDefinition, 'kind' | 'id'>): string {
  return `${definition.kind}:${definition.id}`;
}

async function importCandidate(
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

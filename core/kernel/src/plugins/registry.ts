import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';
import { ConfigError, type ConfigIssue } from '../config/config-error.js';
import { type PluginDefinition, type PluginKind, pluginKinds } from '../contracts/plugin.js';
import { tokens } from '../contracts/tokens.js';
import type { PluginRef } from '../contracts/trial.js';
import { type Candidate, type IssueLocation, resolveExtra, scanNodeModules } from './candidates.js';

export interface LoadedPlugin {
  definition: PluginDefinition;
  packageName: string;
  version: string;
  /** Real path of the package (or local folder) the plugin came from. */
  dir: string;
}

/** An installed package that could not be loaded, and the plugins it declares. */
interface PluginProblem {
  issue: ConfigIssue;
  plugins: { kind: PluginKind; id: string }[];
}

export interface DiscoverOptions {
  /** node_modules are scanned from here upwards. */
  cwd: string;
  /** Package names or paths (relative to `baseDir`) of plugins named by an experiment. */
  extra?: string[];
  /** The experiment's directory, which relative `extra` paths start from. Defaults to `cwd`. */
  baseDir?: string;
  /** Where `extra[index]` is written, so errors about it point into the experiment file. */
  locateExtra?: (index: number) => IssueLocation;
  /** Export conditions used to pick a package's entry module. */
  conditions?: string[];
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

/** Every plugin an experiment can name: installed plugin packages plus the experiment's own. */
export class PluginRegistry {
  readonly #plugins = new Map<string, LoadedPlugin>();

  readonly #problems: PluginProblem[];

  private constructor(plugins: LoadedPlugin[], problems: PluginProblem[] = []) {
    for (const plugin of plugins) this.#plugins.set(keyOf(plugin.definition), plugin);
    this.#problems = problems;
  }

  /**
   * Finds and imports plugins. A plugin the experiment names (`extra`) that cannot be loaded is
   * an error (a ConfigError listing all of them, located by `locateExtra`). An installed package
   * that cannot be loaded (fails to import, is not built, exports no plugin or not the plugins its
   * package.json declares), or a kind and id two installed packages define, does not stop the
   * others: its plugins are left out and the problem is kept (see `problems`), so that it is
   * reported where such a plugin is used and by `longhaul plugins`.
   */
  static async discover(opts: DiscoverOptions): Promise<PluginRegistry> {
    const conditions = opts.conditions ?? defaultConditions;
    const baseDir = resolve(opts.cwd, opts.baseDir ?? opts.cwd);
    const issues: ConfigIssue[] = [];
    const problems: PluginProblem[] = [];
    const candidates: (Candidate & { explicit: boolean })[] = [];
    for (const found of await scanNodeModules(opts.cwd, new Set(), conditions)) {
      if ('issue' in found) problems.push({ issue: found.issue, plugins: [] });
      else candidates.push({ ...found.candidate, explicit: false });
    }
    const extras = await Promise.all(
      (opts.extra ?? []).map((entry, index) =>
        resolveExtra(entry, {
          baseDir,
          cwd: opts.cwd,
          conditions,
          where: opts.locateExtra?.(index) ?? { file: baseDir, key: `plugins[${index}]` },
        }),
      ),
    );
    for (const found of extras) {
      if ('issue' in found) {
        issues.push(found.issue);
        continue;
      }
      // A plugin named in the experiment that is installed as well is the same package: load it once.
      const installed = candidates.find((candidate) => candidate.dir === found.candidate.dir);
      if (installed) Object.assign(installed, { explicit: true, where: found.candidate.where });
      else candidates.push({ ...found.candidate, explicit: true });
    }

    const loaded = await Promise.all(candidates.map((candidate) => importCandidate(candidate)));
    const byKey = new Map<string, { plugin: LoadedPlugin; explicit: boolean }>();
    const ambiguous = new Set<string>();
    for (const [index, result] of loaded.entries()) {
      const candidate = candidates[index]!;
      if ('issues' in result) {
        if (candidate.explicit) issues.push(...result.issues);
        else problems.push(...result.issues.map((issue) => ({ issue, plugins: candidate.manifest ?? [] })));
        continue;
      }
      for (const definition of result.definitions) {
        const key = keyOf(definition);
        const other = byKey.get(key);
        if (!other) {
          const { packageName, version, dir } = candidate;
          byKey.set(key, { plugin: { definition, packageName, version, dir }, explicit: candidate.explicit });
          continue;
        }
        const issue = {
          ...candidate.where,
          message: `${definition.kind} '${definition.id}' is defined by two packages: '${other.plugin.packageName}' (${other.plugin.dir}) and '${candidate.packageName}' (${candidate.dir}); uninstall or rename one`,
        };
        if (candidate.explicit || other.explicit) issues.push(issue);
        else problems.push({ issue, plugins: [{ kind: definition.kind, id: definition.id }] });
        ambiguous.add(key);
      }
    }
    if (issues.length > 0) throw new ConfigError(issues);
    const plugins = [...byKey.entries()]
      .filter(([key]) => !ambiguous.has(key))
      .map(([, entry]) => entry.plugin);
    return new PluginRegistry(plugins, problems);
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

  get(kind: PluginKind, id: string): LoadedPlugin | undefined {
    return this.#plugins.get(`${kind}:${id}`);
  }

  /** Plugins sorted by kind (in `pluginKinds` order) and id. */
  list(kind?: PluginKind): LoadedPlugin[] {
    return [...this.#plugins.values()]
      .filter((plugin) => kind === undefined || plugin.definition.kind === kind)
      .sort(
        (a, b) =>
          pluginKinds.indexOf(a.definition.kind) - pluginKinds.indexOf(b.definition.kind) ||
          a.definition.id.localeCompare(b.definition.id),
      );
  }

  /**
   * Builds the plugin named by `ref` in a child container of `parent` (so it can `ctx.get` the
   * services bound there), with its options parsed by the plugin's schema.
   */
  instantiate<T>(parent: Container, kind: PluginKind, ref: Pick<PluginRef, 'id'> & Partial<PluginRef>): T {
    const plugin = this.get(kind, ref.id);
    if (!plugin) {
      const known = this.list(kind).map((p) => p.definition.id);
      throw new Error(`no ${kind} plugin '${ref.id}' is installed (known: ${known.join(', ') || 'none'})`);
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

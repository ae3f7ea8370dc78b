import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';
import { ConfigError } from '../config/config-error.js';
import type { PluginKind } from '../contracts/plugin.js';
import { tokens } from '../contracts/tokens.js';
import type { PluginRef } from '../contracts/trial.js';
import type { Candidate } from './candidates.js';
import {
  type DeclaredPlugin,
  type DiscoverOptions,
  declaredOf,
  type FoundPlugins,
  findPlugins,
  importCandidate,
  keyOf,
  type LoadedPlugin,
  loadedFrom,
  PluginManifests,
  sortByKindAndId,
  type Want,
} from './discovery.js';

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
 * Every plugin an experiment can name: installed plugin packages plus the experiment's own.
 * Discovery reads package manifests only (`PluginManifests`); a package's code is imported when
 * one of its plugins is asked for (`load`), so listing plugins or starting an experiment imports
 * only what is used.
 */
export class PluginRegistry extends PluginManifests {
  readonly #plugins = new Map<string, LoadedPlugin>();

  /** Installed packages not imported yet, each under every key its manifest declares. */
  readonly #pending = new Map<string, Candidate>();

  private constructor(found: FoundPlugins) {
    super(found);
    for (const plugin of found.loaded) this.#plugins.set(keyOf(plugin.definition), plugin);
    for (const candidate of found.pending) {
      for (const entry of candidate.manifest ?? []) this.#pending.set(keyOf(entry), candidate);
    }
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
  static override async discover(opts: DiscoverOptions): Promise<PluginRegistry> {
    return new PluginRegistry(await findPlugins(opts));
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
        this.found.problems.push(
          ...result.issues.map((issue) => ({ issue, plugins: candidate.manifest ?? [] })),
        );
        continue;
      }
      for (const definition of result.definitions) {
        this.#plugins.set(keyOf(definition), loadedFrom(candidate, definition));
      }
    }
    return this;
  }

  /** A registry of the given plugins, without discovery (tests, embedding). */
  static of(plugins: LoadedPlugin[]): PluginRegistry {
    return new PluginRegistry({ loaded: plugins, problems: [], pending: [], declared: [], commands: [] });
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
  override declared(kind?: PluginKind): DeclaredPlugin[] {
    const declared = super.declared(kind);
    const keys = new Set(declared.map(keyOf));
    // Plugins given to `of` have no manifest entry.
    const extra = this.list(kind)
      .filter((plugin) => !keys.has(keyOf(plugin.definition)))
      .map(declaredOf);
    return sortByKindAndId([...declared, ...extra], (plugin) => plugin);
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

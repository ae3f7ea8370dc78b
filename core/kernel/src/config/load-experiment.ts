import { basename, dirname, extname, isAbsolute, resolve } from 'node:path';
import { Container } from 'inversify';
import { stringify } from 'yaml';
import type { z } from 'zod';
import type { Source } from '../contracts/source.js';
import type { Task } from '../contracts/task.js';
import type { Condition, PluginRef, TrialSpec } from '../contracts/trial.js';
import { PluginRegistry } from '../plugins/registry.js';
import { ConfigError, type ConfigIssue, formatIssue, isConfigError } from './config-error.js';
import { type ExperimentConfig, experimentSchema, type RefField, refFields } from './experiment-schema.js';
import { type HarnessModelUse, harnessModelUses } from './harness-tools.js';
import { interpolateEnv, maskSecrets } from './interpolate.js';
import { expandConditions, expandTrials, limitTrials } from './matrix.js';
import { modelOptionKeys } from './model-option.js';
import { modelReferenceIssues } from './model-references.js';
import { applyOverrides, overrideFile, overrideFor, parseKeyPath, parseOverrides } from './overrides.js';
import { type IssueAt, type LocatedRef, resolveRefs } from './plugin-refs.js';
import { pluginGuarantees, pluginWarnings } from './plugin-warnings.js';
import { type PathIssue, schemaIssues, valueAt } from './schema-issues.js';
import { scoreReferenceIssues } from './score-option.js';
import { closest } from './suggest.js';
import { matchesTaskPattern } from './task-filter.js';
import { formatKeyPath, type KeyPath, readYaml } from './yaml-file.js';

type RawScorer = string | { id?: string; label?: string };

export interface LoadExperimentOptions {
  /** `key.path=value` overrides, applied before validation. */
  set?: string[];
  /** Variables for `${VAR}` interpolation (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Directory relative paths and plugin discovery start from (default: process.cwd()). */
  cwd?: string;
  /** Plugins to use instead of discovering them. */
  registry?: PluginRegistry;
  /**
   * Task ids or globs that replace the experiment's `tasks:` (`longhaul run --tasks`); a pattern
   * that matches no task is an issue of the file `--tasks`.
   */
  tasks?: string[];
  /** Only this many trials of the plan run (in turn from each condition), instead of the experiment's `trialLimit` (`run --limit`). */
  trialLimit?: number;
  /**
   * A model for every harness that takes one (`longhaul run --model`): added to `models:` first,
   * so it is the gateway's default, unless `models:` already names it; given to each harness
   * option marked with `modelOption` that the experiment leaves unset (only harnesses': judges and
   * other plugins keep theirs). Problems with it are issues of `--model`.
   */
  model?: { name: string; config: Record<string, unknown> };
  /** Where longhaul is installed, for discovery (see `DiscoverOptions.installDir`). */
  installDir?: string | null;
  /** Most trials the experiment may expand to (default: `defaultMaxTrials`). */
  maxTrials?: number;
  /**
   * Checks `models:` and `prices:` as the gateway would at the start of a run (the CLI passes the
   * gateway's check); each problem is located in the experiment file.
   */
  checkModels?(
    section: { models?: unknown; prices?: unknown },
    context: { env: Record<string, string | undefined>; baseDir: string },
  ): Promise<PathIssue[]>;
  /**
   * Checks the tool calls of the experiment's scripted models against the tools each harness use
   * offers its model (the CLI passes the gateway's check), once `models:` passed `checkModels`.
   * A problem in the experiment file comes as a key path; one in a replies file located there.
   */
  checkToolCalls?(
    models: unknown,
    uses: HarnessModelUse[],
    context: { baseDir: string },
  ): Promise<(PathIssue | ConfigIssue)[]>;
}

/**
 * The most trials an experiment may expand to unless `maxTrials` says otherwise: far above any
 * real study, far below what would take minutes and gigabytes to expand and plan.
 */
export const defaultMaxTrials = 100_000;

/** Experiment files larger than this are refused before they are parsed. */
export const maxExperimentBytes = 1024 * 1024;

export interface LoadedExperiment {
  /** Absolute path of the experiment file. */
  file: string;
  baseDir: string;
  name: string;
  config: ExperimentConfig;
  /** The experiment as resolved (defaults filled, refs in object form, baseDir set), as YAML. */
  resolved: string;
  registry: PluginRegistry;
  tasks: Task[];
  conditions: Condition[];
  trials: TrialSpec[];
  /** What the plugins in use warn about (e.g. an environment without isolation), one line each. */
  warnings: string[];
  /** What the plugins in use guarantee on this host (an environment's isolation and limits), one line each. */
  guarantees: string[];
  /** Line and column of a key (`environment`, `scorers[1]`) in the experiment file. */
  locate(key: string): { line: number; column: number } | undefined;
}

/**
 * Reads, validates and expands an experiment file. Throws a ConfigError holding every problem
 * found (each with file, line, column and key); writes nothing.
 */
export async function loadExperiment(
  file: string,
  opts: LoadExperimentOptions = {},
): Promise<LoadedExperiment> {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const path = resolve(cwd, file);
  const yaml = await readYaml(path, file, maxExperimentBytes);
  if (!isMapping(yaml.value)) {
    throw new ConfigError([
      {
        file,
        line: 1,
        column: 1,
        message: 'an experiment file must be a mapping of keys (name, source, harness, ...)',
      },
    ]);
  }
  const raw = structuredClone(yaml.value);
  const issues: ConfigIssue[] = [];
  const { overrides, issues: setIssues } = parseOverrides(opts.set ?? []);
  issues.push(...setIssues, ...applyOverrides(raw, overrides, isRefPath));
  const issueAt: IssueAt = (at, message, suggestion) => {
    const override = overrideFor(overrides, at, valueAt(yaml.value, at) !== undefined);
    if (!override) return yaml.issue(at, message, suggestion);
    const key = formatKeyPath(at);
    return {
      file: overrideFile,
      line: override.line,
      column: override.valueColumn,
      key,
      message,
      suggestion,
    };
  };
  // The gateway's `models:` section is its own business, and may name secrets it reads itself.
  const usedVariables = new Map<string, string>();
  for (const issue of interpolateEnv(raw, opts.env ?? process.env, ['models'], usedVariables)) {
    issues.push(issueAt(issue.path, issue.message));
  }

  for (const issue of schemaIssues(experimentSchema, raw).issues) {
    const last = issue.path[issue.path.length - 1];
    const suggestion = issue.known && typeof last === 'string' ? closest(last, issue.known) : undefined;
    issues.push(issueAt(issue.path, issue.message, suggestion));
  }
  type Shape = typeof experimentSchema.shape;
  const field = <K extends keyof Shape>(key: K): z.output<Shape[K]> | undefined => {
    const parsed = experimentSchema.shape[key].safeParse(raw[key]);
    return parsed.success ? (parsed.data as z.output<Shape[K]>) : undefined;
  };

  const baseDir = resolve(dirname(path), typeof raw.baseDir === 'string' ? raw.baseDir : '.');
  const extra = field('plugins') ?? [];
  let registry = opts.registry;
  if (!registry) {
    try {
      registry = await PluginRegistry.discover({
        cwd,
        baseDir,
        extra,
        locateExtra: (index) => issueAt(['plugins', index], ''),
        ...(opts.installDir === undefined ? {} : { installDir: opts.installDir }),
      });
    } catch (error) {
      if (!isConfigError(error)) throw error;
      throw new ConfigError(inFileOrder([...issues, ...error.issues]));
    }
  }

  const tamperWarning = await addTamperSignals(raw, registry);
  // Only the plugins the experiment names are imported.
  await registry.load(
    refFields.flatMap(({ field: key, kind }) =>
      (toList(field(key) as string | { id: string } | (string | { id: string })[] | undefined) ?? []).map(
        (raw) => ({ kind, id: typeof raw === 'string' ? raw : raw.id }),
      ),
    ),
  );
  const modelWarnings = opts.model ? bindModel(raw, opts.model, registry) : [];
  const refs = {} as Record<RefField, LocatedRef[] | undefined>;
  for (const { field: key, kind } of refFields) {
    const value = field(key);
    if (value === undefined) continue;
    const result = resolveRefs(key, kind, value, registry, issueAt);
    issues.push(...result.issues);
    refs[key] = result.refs;
  }

  const located = refFields.map(({ field: key, kind }) => ({ kind, refs: refs[key] ?? [] }));
  issues.push(...modelReferenceIssues(located, registry, raw, issueAt));
  // A misspelt scorer is one problem, not one more per score an option names after it.
  const resolved = new Set((refs.scorers ?? []).map(({ ref }) => ref.label));
  const unresolved = (toList(field('scorers') as RawScorer | RawScorer[] | undefined) ?? [])
    .map((entry) => (typeof entry === 'string' ? entry : (entry.label ?? entry.id)))
    .filter((label): label is string => typeof label === 'string' && !resolved.has(label));
  issues.push(...scoreReferenceIssues({ located, registry, raw, unresolved }, issueAt));
  issues.push(
    ...unmatchedPrices(raw.models, raw.prices).map((key) =>
      issueAt(['prices', key], unmatchedPriceMessage(key, raw.models)),
    ),
  );
  let modelsSound = true;
  if (opts.checkModels && (raw.models !== undefined || raw.prices !== undefined)) {
    const section = { models: raw.models, prices: raw.prices };
    for (const issue of await opts.checkModels(section, { env: opts.env ?? process.env, baseDir })) {
      if (issue.path[0] === 'models') modelsSound = false;
      const last = issue.path[issue.path.length - 1];
      const suggestion =
        issue.suggestion ??
        (issue.known && typeof last === 'string' ? closest(last, issue.known) : undefined);
      const fromFlag =
        opts.model !== undefined &&
        issue.path[0] === 'models' &&
        issue.path[1] === opts.model.name &&
        valueAt(yaml.value, ['models', opts.model.name]) === undefined;
      issues.push(
        fromFlag
          ? { file: '--model', message: issue.message, ...(suggestion ? { suggestion } : {}) }
          : issueAt(issue.path, issue.message, suggestion),
      );
    }
  }

  const taskPatterns = opts.tasks ?? toList(field('tasks'));
  const locateTask: LocateTask = opts.tasks
    ? (_index, message, suggestion) => ({ file: '--tasks', message, suggestion })
    : (index, message, suggestion) =>
        issueAt(Array.isArray(raw.tasks) ? ['tasks', index] : ['tasks'], message, suggestion);
  // Issues of tasks a source still built: the experiment is made with those tasks all the same,
  // carried by the error so the environment's checks can be added to them.
  const taskIssues = new Set<ConfigIssue>();
  const unselected: ConfigIssue[] = [];
  const selected = await selectTasks(
    refs.source ?? [],
    registry,
    baseDir,
    taskPatterns,
    issueAt,
    issues,
    locateTask,
    taskIssues,
    unselected,
  );
  if (opts.checkToolCalls && selected && modelsSound && raw.models !== undefined) {
    const uses = harnessModelUses(refs.harness ?? [], registry, { tasks: selected });
    if (uses.length > 0)
      for (const issue of await opts.checkToolCalls(raw.models, uses, { baseDir }))
        issues.push('file' in issue ? issue : issueAt(issue.path, issue.message, issue.suggestion));
  }
  const onlyTaskIssues = issues.every((issue) => taskIssues.has(issue));
  if (!onlyTaskIssues || !selected || selected.length === 0) throw new ConfigError(inFileOrder(issues));

  const trialLimit = opts.trialLimit ?? field('trialLimit');
  const caseWorkers = field('caseWorkers');
  const name = field('name') ?? basename(path, extname(path)).replace(/[^A-Za-z0-9._-]/g, '-');
  const pick = (key: RefField) => (refs[key] ?? []).map((located) => located.ref);
  const description = field('description');
  const { models, prices } = raw;
  const config: ExperimentConfig = {
    name,
    ...(description === undefined ? {} : { description }),
    baseDir,
    plugins: extra.map((entry) =>
      entry.startsWith('.') || isAbsolute(entry) ? resolve(baseDir, entry) : entry,
    ),
    source: pick('source'),
    ...(taskPatterns ? { tasks: taskPatterns } : {}),
    harness: pick('harness'),
    environment: pick('environment'),
    script: pick('script'),
    memory: pick('memory'),
    scorers: pick('scorers'),
    reporters: pick('reporters'),
    tamperSignals: field('tamperSignals') ?? true,
    repeats: field('repeats')!,
    concurrency: field('concurrency')!,
    ...(caseWorkers === undefined ? {} : { caseWorkers }),
    ...(trialLimit === undefined ? {} : { trialLimit }),
    executor: pick('executor'),
    limits: field('limits')!,
    ...(models === undefined ? {} : { models }),
    ...(prices === undefined ? {} : { prices }),
  };
  const tooMany = trialCountIssue(config, selected.length, opts.maxTrials ?? defaultMaxTrials);
  if (tooMany) throw new ConfigError([issueAt(['repeats'], tooMany)]);
  const conditions = expandConditions(config);
  const trials = limitTrials(expandTrials(config, selected, conditions), config.trialLimit);
  const ids = new Set<string>();
  const duplicate = trials.find((trial) => ids.size === ids.add(trial.id).size);
  if (duplicate) {
    throw new ConfigError([
      issueAt(
        ['harness'],
        `two trials would share the id '${duplicate.id}'; give the plugins distinct labels`,
      ),
    ]);
  }
  const experiment: LoadedExperiment = {
    file: path,
    baseDir,
    name,
    config,
    resolved: resolvedYaml(config, usedVariables),
    registry,
    tasks: selected,
    conditions,
    trials,
    warnings: [
      ...modelWarnings,
      ...(tamperWarning ? [tamperWarning] : []),
      ...unselectedWarning(unselected),
      ...pluginWarnings(config, registry, { tasks: selected }),
    ],
    guarantees: pluginGuarantees(config, registry, { tasks: selected }),
    locate: (key) => {
      const at = parseKeyPath(key);
      return at ? yaml.locate(at) : undefined;
    },
  };
  if (issues.length > 0) throw new ConfigError(inFileOrder(issues), { experiment });
  return experiment;
}

/** The scorer every experiment gets unless it says `tamperSignals: false` (see the schema). */
export const tamperSignalsScorer = 'integrity';

/**
 * Appends the tamper-signal scorer to the experiment's scorers when it is installed and not
 * listed, so that a researcher sees an agent's attempts on the judge without opting in. An
 * installed one that cannot be loaded is left out with a warning rather than failing the run.
 */
async function addTamperSignals(
  raw: Record<string, unknown>,
  registry: PluginRegistry,
): Promise<string | undefined> {
  if (raw.tamperSignals === false) return undefined;
  if (!registry.declared('scorer').some((plugin) => plugin.id === tamperSignalsScorer)) return undefined;
  const listed = raw.scorers === undefined ? ['tests'] : raw.scorers;
  // Anything else is the schema's to refuse, as written.
  if (!Array.isArray(listed) && typeof listed !== 'string' && !isMapping(listed)) return undefined;
  const entries: unknown[] = Array.isArray(listed) ? listed : [listed];
  const named = (entry: unknown) =>
    entry === tamperSignalsScorer || (isMapping(entry) && entry.id === tamperSignalsScorer);
  if (entries.some(named)) return undefined;
  await registry.load([{ kind: 'scorer', id: tamperSignalsScorer }]);
  if (!registry.get('scorer', tamperSignalsScorer)) {
    const why = registry.problems('scorer', tamperSignalsScorer).map(formatIssue).join('; ');
    return `no tamper signals: the ${tamperSignalsScorer} scorer is installed but cannot be used (${why || 'it did not load'})`;
  }
  raw.scorers = [...entries, tamperSignalsScorer];
  return undefined;
}

/**
 * Puts `--model`'s model into `raw` (see `LoadExperimentOptions.model`) before refs are resolved,
 * so the run, its resolved YAML and every check see it as if the file said so. A harness's model
 * options are those its schema marks with `modelOption`, whatever their names; other plugins'
 * (judges, memories' extractors) keep the models they name, so a judge is not the model it
 * grades unless the experiment says so. Returns a warning when no harness takes a model, since
 * the flag then changes nothing a user would see.
 */
function bindModel(
  raw: Record<string, unknown>,
  model: { name: string; config: Record<string, unknown> },
  registry: PluginRegistry,
): string[] {
  const models = isMapping(raw.models) ? raw.models : {};
  if (!Object.hasOwn(models, model.name)) raw.models = { [model.name]: model.config, ...models };
  const entries = Array.isArray(raw.harness) ? raw.harness : [raw.harness];
  const bound: unknown[] = [];
  const without: string[] = [];
  for (const entry of entries) {
    const ref = typeof entry === 'string' ? { id: entry } : entry;
    if (!isMapping(ref) || typeof ref.id !== 'string') {
      bound.push(entry);
      continue;
    }
    const keys = modelOptionKeys(registry.get('harness', ref.id)?.definition.options);
    const options = isMapping(ref.options) ? ref.options : {};
    if (keys.length === 0) without.push(ref.id);
    const unset = keys.filter((key) => options[key] === undefined);
    bound.push(
      unset.length > 0
        ? { ...ref, options: { ...options, ...Object.fromEntries(unset.map((key) => [key, model.name])) } }
        : entry,
    );
  }
  if (raw.harness !== undefined) raw.harness = Array.isArray(raw.harness) ? bound : bound[0];
  return without.length === entries.length
    ? [
        `--model ${model.name}: no harness of this experiment takes a model (${without.join(', ')}); the model is added to models: but nothing asks for it`,
      ]
    : [];
}

/**
 * Why the experiment expands to more than `max` trials, naming each axis and the count; the count
 * is a product of lengths, so nothing is expanded to find it.
 */
function trialCountIssue(config: ExperimentConfig, tasks: number, max: number): string | undefined {
  const factors: [string, number][] = [
    ['task', tasks],
    ['harness', config.harness.length],
    ['script', config.script.length],
    ['memory', config.memory.length],
    ['environment', config.environment.length],
    ['repeat', config.repeats],
  ];
  const count = factors.reduce((product, [, n]) => product * n, 1);
  if (count <= max) return undefined;
  const shown = factors.map(
    ([axis, n]) => `${n} ${axis}${n === 1 || axis === 'memory' ? '' : axis === 'harness' ? 'es' : 's'}`,
  );
  return `the experiment expands to ${shown.join(' × ')} = ${count.toLocaleString('en-US')} trials, above the limit of ${max.toLocaleString('en-US')}; lower repeats, narrow tasks or an axis, or split the experiment`;
}

/**
 * Keys of `prices:` that can price no model: neither a model name under `models:`, nor a model's
 * provider id (`model:`), nor a prefix a dated provider id extends (`claude-sonnet-4-5` prices
 * `claude-sonnet-4-5-20250929`). With a `replay` model any key may match a recorded model id, so
 * none is refused. Malformed sections are left to the gateway's own checks.
 */
function unmatchedPrices(models: unknown, prices: unknown): string[] {
  if (!isMapping(prices) || (models !== undefined && !isMapping(models))) return [];
  const entries = Object.values(models ?? {}).filter(isMapping);
  if (entries.some((model) => model.backend === 'replay')) return [];
  const names = [
    ...Object.keys(models ?? {}),
    ...entries.map((model) => model.model).filter((id): id is string => typeof id === 'string'),
  ];
  return Object.keys(prices).filter(
    (key) => !names.some((name) => name === key || name.startsWith(`${key}-`)),
  );
}

function unmatchedPriceMessage(key: string, models: unknown): string {
  const names = isMapping(models) ? Object.keys(models).join(', ') : '';
  return `prices '${key}', but no model under models: is named '${key}' or has it as its provider model id (models: ${names || 'none'}); fix the name or remove the entry`;
}

/** Issues grouped by file (in order of first appearance), then by position. */
function inFileOrder(issues: ConfigIssue[]): ConfigIssue[] {
  const files = [...new Set(issues.map((issue) => issue.file))];
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        files.indexOf(a.issue.file) - files.indexOf(b.issue.file) ||
        (a.issue.line ?? 0) - (b.issue.line ?? 0) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.index - b.index,
    )
    .map(({ issue }) => issue);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function toList<T>(value: T | T[] | undefined): T[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

/** Where a plugin is named: an axis itself, or an item of a list of refs. */
function isRefPath(path: KeyPath): boolean {
  const field = refFields.find((ref) => ref.field === path[0]);
  return !!field && (path.length === 1 || (path.length === 2 && typeof path[1] === 'number'));
}

type LocateTask = (index: number, message: string, suggestion: string | undefined) => ConfigIssue;

/**
 * The tasks the experiment runs. Sources are given the filter, so one that honours it reads only
 * the matching tasks; when a pattern then matches nothing (or a source fails), every task is
 * loaded, so the issue can list the ids there are.
 */
async function selectTasks(
  sources: LocatedRef[],
  registry: PluginRegistry,
  baseDir: string,
  patterns: string[] | undefined,
  issueAt: IssueAt,
  issues: ConfigIssue[],
  locateTask: LocateTask,
  taskIssues: Set<ConfigIssue>,
  unselected: ConfigIssue[],
): Promise<Task[] | undefined> {
  const matching = (task: Task) => patterns!.some((pattern) => matchesTaskPattern(task.id, pattern));
  // An issue of one task the filter leaves out (a source that reads every task) holds nothing up.
  const ours = (found: ConfigIssue[]) => {
    if (!patterns) return found;
    const left = found.filter(
      (issue) =>
        issue.task !== undefined && !patterns.some((pattern) => matchesTaskPattern(issue.task!, pattern)),
    );
    unselected.splice(0, unselected.length, ...left);
    return found.filter((issue) => !left.includes(issue));
  };
  if (patterns) {
    const scratch: ConfigIssue[] = [];
    const filtered = await loadTasks(sources, registry, baseDir, patterns, issueAt, scratch, taskIssues);
    const everyPatternMatches = patterns.every((pattern) =>
      filtered?.some((task) => matchesTaskPattern(task.id, pattern)),
    );
    const kept = ours(scratch);
    if (filtered && everyPatternMatches && kept.every((issue) => taskIssues.has(issue))) {
      issues.push(...kept);
      return filtered.filter(matching);
    }
  }
  const found: ConfigIssue[] = [];
  const tasks = await loadTasks(sources, registry, baseDir, undefined, issueAt, found, taskIssues);
  issues.push(...ours(found));
  return tasks && filterTasks(tasks, patterns, locateTask, issues);
}

/** One line for the issues of tasks the experiment does not select, however many there are. */
function unselectedWarning(unselected: readonly ConfigIssue[]): string[] {
  if (unselected.length === 0) return [];
  const ids = [...new Set(unselected.map((issue) => issue.task!))];
  const shown = ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, ...` : ids.join(', ');
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return [
    `${count(unselected.length, 'problem')} in ${count(ids.length, 'task')} this experiment does not select (${shown}); select them in tasks: to see them`,
  ];
}

async function loadTasks(
  sources: LocatedRef[],
  registry: PluginRegistry,
  baseDir: string,
  filter: string[] | undefined,
  issueAt: IssueAt,
  issues: ConfigIssue[],
  taskIssues: Set<ConfigIssue>,
): Promise<Task[] | undefined> {
  const container = new Container();
  const context = filter ? { baseDir, tasks: filter } : { baseDir };
  const loaded = await Promise.all(
    sources.map(async ({ ref, path }) => {
      try {
        return await registry.instantiate<Source>(container, 'source', ref).load(context);
      } catch (error) {
        if (isConfigError(error)) {
          issues.push(...error.issues);
          // A source that still built some tasks: they are checked further, the issues kept.
          if (error.loaded?.tasks) {
            for (const issue of error.issues) taskIssues.add(issue);
            return error.loaded.tasks;
          }
        } else
          issues.push(
            issueAt(path, `source '${ref.label}' could not load its tasks: ${(error as Error).message}`),
          );
        return undefined;
      }
    }),
  );
  if (loaded.some((tasks) => tasks === undefined) || sources.length === 0) return undefined;
  const tasks: Task[] = [];
  const origin = new Map<string, string>();
  for (const [index, batch] of loaded.entries()) {
    const { ref, path } = sources[index]!;
    for (const task of batch!) {
      const first = origin.get(task.id);
      if (first !== undefined) {
        const where =
          first === ref.label
            ? `source '${ref.label}' has two tasks`
            : `sources '${first}' and '${ref.label}' both have a task`;
        issues.push(
          issueAt(path, `${where} with the id '${task.id}'; task ids must be unique in an experiment`),
        );
        continue;
      }
      origin.set(task.id, ref.label);
      tasks.push(task);
    }
  }
  if (tasks.length === 0) issues.push(issueAt(sources[0]!.path, 'the sources produced no tasks'));
  return tasks;
}

function filterTasks(
  tasks: Task[],
  patterns: string[] | undefined,
  locateTask: LocateTask,
  issues: ConfigIssue[],
): Task[] | undefined {
  if (!patterns) return tasks;
  const ids = tasks.map((task) => task.id);
  let ok = true;
  for (const [index, pattern] of patterns.entries()) {
    if (ids.some((id) => matchesTaskPattern(id, pattern))) continue;
    ok = false;
    const shown = ids.length > 10 ? `${ids.slice(0, 10).join(', ')}, ...` : ids.join(', ');
    issues.push(locateTask(index, `no task matches '${pattern}' (tasks: ${shown})`, closest(pattern, ids)));
  }
  return ok
    ? tasks.filter((task) => patterns.some((pattern) => matchesTaskPattern(task.id, pattern)))
    : undefined;
}

/**
 * The experiment as a run stores it: loading this text again (from anywhere) yields the same
 * trials. `$` is doubled so that values are not interpolated a second time, except where a
 * secret-looking variable's value stood: that goes back to `${NAME}`, so a credential never
 * reaches the run store (resuming then needs the variable set again).
 */
function resolvedYaml(config: ExperimentConfig, usedVariables: ReadonlyMap<string, string>): string {
  const escapeDollars = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replace(/\$/g, () => '$$');
    if (Array.isArray(value)) return value.map(escapeDollars);
    if (isMapping(value))
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, escapeDollars(item)]));
    return value;
  };
  const ref = (item: PluginRef) => ({ id: item.id, label: item.label, options: item.options });
  const { models, prices, plugins, tasks, ...rest } = config;
  const document = {
    name: rest.name,
    ...(rest.description === undefined ? {} : { description: rest.description }),
    baseDir: rest.baseDir,
    ...(plugins.length > 0 ? { plugins } : {}),
    source: rest.source.map(ref),
    ...(tasks ? { tasks } : {}),
    harness: rest.harness.map(ref),
    environment: rest.environment.map(ref),
    script: rest.script.map(ref),
    memory: rest.memory.map(ref),
    scorers: rest.scorers.map(ref),
    reporters: rest.reporters.map(ref),
    // The scorer it adds is listed above; false keeps a resume from adding it.
    ...(rest.tamperSignals ? {} : { tamperSignals: false }),
    repeats: rest.repeats,
    concurrency: rest.concurrency,
    ...(rest.caseWorkers === undefined ? {} : { caseWorkers: rest.caseWorkers }),
    ...(rest.trialLimit === undefined ? {} : { trialLimit: rest.trialLimit }),
    ...(rest.executor[0] ? { executor: ref(rest.executor[0]) } : {}),
    limits: rest.limits,
  };
  const stored = maskSecrets(escapeDollars(document), usedVariables) as object;
  return stringify({
    ...stored,
    ...(models === undefined ? {} : { models }),
    ...(prices === undefined ? {} : { prices }),
  });
}

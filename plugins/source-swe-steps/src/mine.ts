import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { availableCores, type ModelGateway, sha256, writeJsonAtomic } from '@longhaul/core';
import { BlobReader } from './blobs.js';
import { lockCache } from './cache-lock.js';
import { buildChains, type ChainInput, type FoldPolicy } from './chains.js';
import { classifyPr } from './classify.js';
import { bundleFile, datasetFormat, type Manifest, manifestFile, type PrRecord } from './dataset.js';
import { type Describer, describePr } from './describe.js';
import { Git } from './git.js';
import { changedFiles, firstParentHistory } from './history.js';
import { classifier, defaultPathRules, type PathRules } from './path-rules.js';
import { detectPr } from './pr-detect.js';
import { type PrText, readPrsFile } from './prs-file.js';
import { buildRecipe, imageIdOf, type Recipe } from './recipe.js';
import {
  checkImage,
  defaultImage,
  probeRuntime,
  type Runtime,
  type ValidationResult,
  type ValidationSettings,
  type ValidationTiming,
  validatePr,
  type Workspace,
} from './validate.js';
import { MineInputError, windowBounds } from './window.js';

export interface MineOptions {
  /** A local git repository (work tree or bare) or a git bundle. */
  repo: string;
  since: string;
  until: string;
  /** The dataset directory to write. */
  out: string;
  /** Where relative paths (repo, out, prs, cacheDir) start; default: the working directory. */
  cwd?: string;
  /** PR text exported from the forge (see readPrsFile). */
  prs?: string;
  /** The repository's name in task ids; default: the repository directory or bundle name. */
  name?: string;
  /** The branch whose first-parent history is mined; default: the repository's HEAD branch. */
  branch?: string;
  /** Validation image, or the base of `recipe`; default: the newest `longhaul images build` image. */
  image?: string;
  /** The repository's environment, built once into the image validation, agent and scorer share. */
  recipe?: Recipe;
  setup?: string[];
  command?: string[];
  reruns?: number;
  timeoutSeconds?: number;
  minChain?: number;
  maxChain?: number;
  /** Which commits between two validated PRs keep them in one chain (default `docs-config`). */
  fold?: FoldPolicy;
  rules?: Partial<PathRules>;
  /** PRs validated at once; default: the cores this process may use. */
  jobs?: number;
  /** Where the repository mirror and the validation cache live; default `<out>/cache`. */
  cacheDir?: string;
  /** Categorise each PR with this model of the gateway. */
  classify?: { gateway: ModelGateway; model: string };
  progress?: (event: MineProgress) => void;
  /**
   * Stops the run: no PR starts, running validations are stopped and their containers removed,
   * and mine rejects with a MineStopped. Every result known before is in the cache.
   */
  signal?: AbortSignal;
}

/** Mining was stopped through its signal; running it again resumes from the cache. */
export class MineStopped extends Error {
  override name = 'MineStopped';
  constructor(readonly cached: number) {
    super(
      `stopped: ${cached} PRs have a validation result in the cache; run the same command again to resume`,
    );
  }
}

export type MineProgress =
  | { phase: 'environment'; line: string }
  | {
      phase: 'history';
      commits: number;
      prs: number;
      /** PRs excluded from git alone, by reason, before any sandbox starts. */
      excluded: Record<string, number>;
      /** PRs left to validate (some may come from the cache). */
      toValidate: number;
      seconds: number;
    }
  /** A PR's validation started in a sandbox. */
  | { phase: 'validating'; pr: number; running: number[] }
  | {
      phase: 'pr';
      done: number;
      total: number;
      pr: number;
      outcome: string;
      cached: boolean;
      /** Where this PR's validation spent its time (absent when it came from the cache). */
      timing?: ValidationTiming;
    }
  | { phase: 'chains'; chains: number }
  | { phase: 'written'; dir: string };

/** PRs validated at once when not told: one per core this process may use. */
export const defaultJobs = () => availableCores();

export const mineDefaults = {
  command: ['python3', '-m', 'pytest'],
  reruns: 2,
  timeoutSeconds: 300,
  minChain: 3,
  maxChain: 11,
  fold: 'docs-config' as FoldPolicy,
};

const nameOf = (repo: string) => basename(repo).replace(/\.(bundle|git)$/, '');

/**
 * A bare mirror of the repository or bundle in the cache, refreshed on every run. A first clone
 * is made beside and renamed into place: a run killed while cloning leaves no half mirror.
 */
async function mirror(repo: string, cacheDir: string): Promise<Git> {
  const dir = join(cacheDir, 'repo.git');
  if (!existsSync(dir)) {
    const partial = `${dir}.partial`;
    await rm(partial, { recursive: true, force: true });
    await new Git(cacheDir).run(['clone', '--quiet', '--bare', repo, partial]);
    await rename(partial, dir);
  } else {
    await new Git(dir).run(['fetch', '--quiet', '--force', repo, '+refs/heads/*:refs/heads/*']);
  }
  return new Git(dir);
}

async function defaultBranch(git: Git): Promise<string> {
  return (await git.run(['symbolic-ref', '--short', 'HEAD'])).trim();
}

/** A cached result, or undefined when there is none or it cannot be read: it is then made again. */
async function readCached<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function pool<T>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && !signal?.aborted && next < items.length) {
      try {
        await work(items[next++]!);
      } catch (error) {
        // The other lanes finish what they run (and cache it) but start nothing new.
        failed = true;
        throw error;
      }
    }
  };
  const lanes = await Promise.allSettled(
    Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane),
  );
  const rejected = lanes.find((lane) => lane.status === 'rejected');
  if (rejected) throw (rejected as PromiseRejectedResult).reason;
}

/** The version of a cached validation result: a new one validates again. */
const validationFormat = 2;

interface Pending {
  record: PrRecord;
  runnable: string[];
}

/**
 * Mines a repository's first-parent history in a window into a SWE-STEPS dataset directory:
 * detect PRs, describe each (Table 4), exclude from git alone what cannot be a step, validate the
 * rest in Docker, `jobs` at once, and cut the validated PRs into chains. Each validation result
 * is cached by commit and options as soon as it is known, so mining again (after an interruption
 * too) validates only what has no result yet.
 */
export async function mine(options: MineOptions): Promise<Manifest> {
  const started = Date.now();
  const at = (path: string) => resolve(options.cwd ?? '.', path);
  const out = at(options.out);
  const cacheDir = at(options.cacheDir ?? join(out, 'cache'));
  const rules: PathRules = { ...defaultPathRules, ...options.rules };
  const { start, end } = windowBounds(options.since, options.until);
  const repo = at(options.repo);
  if (!existsSync(repo)) throw new MineInputError(`${options.repo}: no such repository or bundle`);
  const jobs = options.jobs ?? defaultJobs();
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new MineInputError(`--jobs ${jobs}: need a whole number >= 1`);
  const chainOptions = {
    minLength: options.minChain ?? mineDefaults.minChain,
    maxLength: options.maxChain ?? mineDefaults.maxChain,
    fold: options.fold ?? mineDefaults.fold,
  };
  if (chainOptions.minLength < 1 || chainOptions.maxLength < chainOptions.minLength)
    throw new MineInputError(
      `chain lengths: need 1 <= --min-chain (${chainOptions.minLength}) <= --max-chain (${chainOptions.maxLength})`,
    );
  const texts: Map<number, PrText> = options.prs
    ? await readPrsFile(at(options.prs), options.prs)
    : new Map();
  const base = options.image ?? (await defaultImage());
  await checkImage(base);
  const built = options.recipe
    ? await buildRecipe(options.recipe, options.name ?? nameOf(repo), base, (line) =>
        options.progress?.({ phase: 'environment', line }),
      )
    : undefined;
  const settings: ValidationSettings = {
    image: built?.image ?? base,
    setup: options.setup ?? [],
    command: options.command ?? mineDefaults.command,
    reruns: options.reruns ?? mineDefaults.reruns,
    timeoutSeconds: options.timeoutSeconds ?? mineDefaults.timeoutSeconds,
  };
  const lock = await lockCache(cacheDir);
  try {
    return await mineLocked({
      options,
      started,
      out,
      cacheDir,
      repo,
      rules,
      window: { start, end },
      jobs,
      chainOptions,
      texts,
      built,
      settings,
      workspace: { ...lock.workspace, ...(options.signal ? { signal: options.signal } : {}) },
    });
  } catch (error) {
    // A Ctrl-C on a terminal reaches git and docker too: what they fail with is the stop.
    if (options.signal?.aborted && !(error instanceof MineStopped))
      throw new MineStopped(await cachedResults(cacheDir));
    throw error;
  } finally {
    await lock.release();
  }
}

/** How many validation results the cache holds. */
async function cachedResults(cacheDir: string): Promise<number> {
  const files = await readdir(join(cacheDir, 'validation')).catch(() => []);
  return files.filter((file) => file.endsWith('.json')).length;
}

interface Run {
  options: MineOptions;
  started: number;
  out: string;
  cacheDir: string;
  repo: string;
  rules: PathRules;
  window: { start: number; end: number };
  jobs: number;
  chainOptions: { minLength: number; maxLength: number; fold: FoldPolicy };
  texts: Map<number, PrText>;
  built: Awaited<ReturnType<typeof buildRecipe>> | undefined;
  settings: ValidationSettings;
  workspace: Workspace;
}

async function mineLocked(run: Run): Promise<Manifest> {
  const { options, out, cacheDir, repo, settings, built, chainOptions } = run;
  const gitStarted = Date.now();
  const git = await mirror(repo, cacheDir);
  const blobs = new BlobReader(git);
  try {
    const branch = options.branch ?? (await defaultBranch(git));
    const history = (await firstParentHistory(git, branch)).filter((commit) => {
      const time = Date.parse(commit.date);
      return time >= run.window.start && time <= run.window.end;
    });
    const name = options.name ?? nameOf(repo);
    const changes = await changedFiles(
      git,
      history.filter((commit) => commit.parent).map((commit) => commit.sha),
    );
    const kindOf = classifier(run.rules);
    const describer: Describer = { git, blobs, kindOf, definitions: new Map() };

    const records: PrRecord[] = [];
    const pending: Pending[] = [];
    const inputs: ChainInput[] = [];
    for (const commit of history) {
      const detected = detectPr(commit.message);
      const changed = commit.parent ? (changes.get(commit.sha) ?? []) : [];
      const docsOrConfigOnly = changed.every((file) => ['docs', 'config'].includes(kindOf(file.path)));
      if (!detected || !commit.parent) {
        inputs.push({ commit: commit.sha, parent: commit.parent, validated: false, docsOrConfigOnly });
        continue;
      }
      const described = await describePr(
        describer,
        commit,
        changed,
        detected,
        run.texts.get(detected.number),
      );
      records.push(described.record);
      if (!described.record.excluded) pending.push(described);
      inputs.push({
        commit: commit.sha,
        parent: commit.parent,
        pr: detected.number,
        validated: false,
        docsOrConfigOnly,
      });
    }
    options.progress?.({
      phase: 'history',
      commits: history.length,
      prs: records.length,
      excluded: countReasons(records),
      toValidate: pending.length,
      seconds: (Date.now() - gitStarted) / 1000,
    });

    const validationDir = join(cacheDir, 'validation');
    await mkdir(validationDir, { recursive: true });
    const cacheFileOf = ({ record, runnable }: Pending) => {
      const key = sha256(
        JSON.stringify({
          format: validationFormat,
          commit: record.commit_id,
          parent: record.parent_id,
          runnable,
          test: record.test_files,
          settings,
        }),
      );
      return join(validationDir, `${record.commit_id}-${key.slice(0, 16)}.json`);
    };
    const imageId = built?.imageId ?? (await imageIdOf(settings.image));
    const firstPending = pending[0];
    const runtime = firstPending
      ? runtimeOf(git, firstPending.record.parent_id, settings, imageId, run, pending.map(cacheFileOf))
      : Promise.resolve(undefined);
    // Awaited at the end; a failure to probe is no failure to mine.
    runtime.catch(() => undefined);

    let done = records.length - pending.length;
    let fromCache = 0;
    const running = new Set<number>();
    const validating = pool(
      pending,
      run.jobs,
      async (item) => {
        const { record, runnable } = item;
        const cacheFile = cacheFileOf(item);
        let result = await readCached<ValidationResult>(cacheFile);
        const cached = result !== undefined;
        if (result === undefined) {
          running.add(record.pr_number);
          options.progress?.({ phase: 'validating', pr: record.pr_number, running: [...running] });
          const gitStarted = Date.now();
          const previousTests = new Map<string, string | undefined>();
          for (const path of runnable) previousTests.set(path, await blobs.show(record.parent_id, path));
          const gitSeconds = (Date.now() - gitStarted) / 1000;
          try {
            result = await validatePr(
              git,
              {
                parent: record.parent_id,
                testPatch: record.test_patch,
                fixPatch: record.fix_patch,
                testFiles: runnable,
                previousTests,
              },
              settings,
              run.workspace,
            );
          } finally {
            running.delete(record.pr_number);
          }
          // A validation the stop cut short is no result: it runs again on resume.
          if (options.signal?.aborted) return;
          if (result.timing) result.timing.git += gitSeconds;
          await writeJsonAtomic(cacheFile, result);
        } else fromCache++;
        record.fail_to_pass = result.f2p;
        record.pass_to_pass = result.p2p;
        record.dropped_tests = result.dropped;
        if (result.excluded) record.excluded = result.excluded;
        else record.status = 'validated';
        done++;
        options.progress?.({
          phase: 'pr',
          done,
          total: records.length,
          pr: record.pr_number,
          outcome: record.excluded?.reason ?? 'validated',
          cached,
          ...(!cached && result.timing ? { timing: result.timing } : {}),
        });
      },
      options.signal,
    );
    // A validation the stop cut short may fail in any way: the stop is what happened.
    await validating.catch((error) => {
      if (!options.signal?.aborted) throw error;
    });
    if (options.signal?.aborted) {
      await runtime.catch(() => undefined);
      throw new MineStopped(pending.filter((item) => existsSync(cacheFileOf(item))).length);
    }

    if (options.classify) await classifyAll(records, options.classify, join(cacheDir, 'classification'));

    const byCommit = new Map(records.map((record) => [record.commit_id, record]));
    for (const input of inputs) {
      const record = byCommit.get(input.commit);
      if (!record) continue;
      input.validated = record.status === 'validated';
      input.reason = record.excluded?.reason;
    }
    const { chains } = buildChains(inputs, chainOptions);
    options.progress?.({ phase: 'chains', chains: chains.length });

    await mkdir(out, { recursive: true });
    const head =
      history.length > 0 ? history[history.length - 1]!.sha : (await git.run(['rev-parse', branch])).trim();
    await git.run(['update-ref', 'refs/heads/swe-steps-dataset', head]);
    const bundle = join(out, bundleFile);
    await git.run(['bundle', 'create', '--quiet', `${bundle}.partial`, 'refs/heads/swe-steps-dataset']);
    await rename(`${bundle}.partial`, bundle);

    const probed = await runtime.catch(() => undefined);
    const manifest: Manifest = {
      format: datasetFormat,
      repository: { name, source: repo, branch, head },
      window: { since: options.since, until: options.until },
      options: {
        ...settings,
        ...chainOptions,
        rules: run.rules,
        ...(options.recipe ? { recipe: options.recipe } : {}),
      },
      environment: {
        image: settings.image,
        ...(imageId ? { imageId } : {}),
        ...(built ? { recipeHash: built.recipeHash } : {}),
        ...(probed ? { runtime: probed } : {}),
        setup: settings.setup,
        toolchains: ['python', 'pytest', 'git'],
      },
      tests: { command: settings.command, timeoutSeconds: settings.timeoutSeconds },
      stats: {
        commits: history.length,
        prsSeen: records.length,
        excluded: countReasons(records),
        validated: records.filter((record) => record.status === 'validated').length,
        validatedNow: pending.length - fromCache,
        fromCache,
        testsDropped: records.reduce((sum, record) => sum + record.dropped_tests.length, 0),
        chains: chains.length,
        prsInChains: chains.reduce((sum, chain) => sum + chain.prs.length, 0),
        wallSeconds: Math.round((Date.now() - run.started) / 100) / 10,
      },
      prs: records,
      chains,
    };
    await writeJsonAtomic(join(out, manifestFile), manifest);
    options.progress?.({ phase: 'written', dir: out });
    return manifest;
  } finally {
    blobs.close();
  }
}

function countReasons(records: PrRecord[]): Record<string, number> {
  const excluded: Record<string, number> = {};
  for (const record of records)
    if (record.excluded) excluded[record.excluded.reason] = (excluded[record.excluded.reason] ?? 0) + 1;
  return excluded;
}

/**
 * The interpreter and pytest the tests run with: the image's (and the setup's), so probed once
 * per mining run and cached, not once per PR. Results cached by older versions carry it too.
 */
async function runtimeOf(
  git: Git,
  commit: string,
  settings: ValidationSettings,
  imageId: string | undefined,
  run: Run,
  cacheFiles: string[],
): Promise<Runtime | undefined> {
  const { image, setup, command } = settings;
  const file = join(
    run.cacheDir,
    `runtime-${sha256(JSON.stringify({ image, imageId, setup, command })).slice(0, 16)}.json`,
  );
  const known = await readCached<Runtime>(file);
  if (known) return known;
  for (const cacheFile of cacheFiles) {
    const older = (await readCached<ValidationResult>(cacheFile))?.environment;
    if (older) return older;
  }
  const probed = await probeRuntime(git, commit, settings, run.workspace);
  if (probed) await writeJsonAtomic(file, probed);
  return probed;
}

async function classifyAll(
  records: PrRecord[],
  classify: NonNullable<MineOptions['classify']>,
  dir: string,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const record of records) {
    const file = join(dir, `${record.commit_id}-${sha256(classify.model).slice(0, 8)}.json`);
    let result = await readCached<Awaited<ReturnType<typeof classifyPr>>>(file);
    if (!result) {
      result = await classifyPr(classify.gateway, classify.model, record);
      if (!result.problem) await writeJsonAtomic(file, result);
    }
    if (result.category) record.category = result.category;
    if (result.classification) record.classification = result.classification;
  }
}

import { existsSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { type ModelGateway, sha256, writeJsonAtomic } from '@longhaul/core';
import { buildChains, type ChainInput, type FoldPolicy } from './chains.js';
import { classifyPr } from './classify.js';
import {
  bundleFile,
  datasetFormat,
  type ExclusionReason,
  type Manifest,
  manifestFile,
  type PrRecord,
} from './dataset.js';
import { type DefinitionChanges, definitionsSupported, diffDefinitions } from './definitions.js';
import { Git } from './git.js';
import { classifier, defaultPathRules, type FileKind, isTestModule, type PathRules } from './path-rules.js';
import { detectPr } from './pr-detect.js';
import { type PrText, readPrsFile } from './prs-file.js';
import { buildRecipe, imageIdOf, type Recipe } from './recipe.js';
import {
  checkImage,
  defaultImage,
  type Runtime,
  type ValidationResult,
  type ValidationSettings,
  validatePr,
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
  concurrency?: number;
  /** Where the repository mirror and the validation cache live; default `<out>/cache`. */
  cacheDir?: string;
  /** Categorise each PR with this model of the gateway. */
  classify?: { gateway: ModelGateway; model: string };
  progress?: (event: MineProgress) => void;
}

export type MineProgress =
  | { phase: 'environment'; line: string }
  | { phase: 'history'; commits: number; prs: number }
  | { phase: 'pr'; done: number; total: number; pr: number; outcome: string; cached: boolean }
  | { phase: 'chains'; chains: number }
  | { phase: 'written'; dir: string };

export const mineDefaults = {
  command: ['python3', '-m', 'pytest'],
  reruns: 2,
  timeoutSeconds: 300,
  minChain: 3,
  maxChain: 11,
  concurrency: 2,
  fold: 'docs-config' as FoldPolicy,
};

const nameOf = (repo: string) => basename(repo).replace(/\.(bundle|git)$/, '');

interface Commit {
  sha: string;
  parent: string;
  date: string;
  message: string;
}

async function firstParentHistory(git: Git, branch: string): Promise<Commit[]> {
  const raw = await git.run(['log', '--first-parent', '--format=%H%x00%P%x00%cI%x00%B%x1e', branch]);
  return raw
    .split('\x1e')
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record.trim() !== '')
    .map((record) => {
      const [sha = '', parents = '', date = '', message = ''] = record.split('\x00');
      return { sha, parent: parents.split(' ')[0] ?? '', date, message };
    })
    .reverse();
}

/** A bare mirror of the repository or bundle in the cache, refreshed on every run. */
async function mirror(repo: string, cacheDir: string): Promise<Git> {
  const dir = join(cacheDir, 'repo.git');
  if (!existsSync(dir)) {
    await mkdir(cacheDir, { recursive: true });
    await new Git(cacheDir).run(['clone', '--quiet', '--bare', repo, dir]);
  } else {
    await new Git(dir).run(['fetch', '--quiet', '--force', repo, '+refs/heads/*:refs/heads/*']);
  }
  return new Git(dir);
}

async function defaultBranch(git: Git): Promise<string> {
  return (await git.run(['symbolic-ref', '--short', 'HEAD'])).trim();
}

function addedLines(patch: string, limit: number): string {
  const out: string[] = [];
  let file = '';
  for (const line of patch.split('\n')) {
    if (line.startsWith('+++ ')) {
      file = line.replace(/^\+\+\+ b\//, '');
      out.push(`${file}:`);
    } else if (line.startsWith('+') && !line.startsWith('+++')) out.push(line.slice(1));
  }
  const text = out.join('\n');
  return text.length > limit ? `${text.slice(0, limit)}\n[…]` : text;
}

function excludedBeforeRunning(kinds: Map<string, FileKind>): ExclusionReason | undefined {
  const all = [...kinds.values()];
  if (all.every((kind) => kind === 'docs')) return 'docs-only';
  if (all.every((kind) => kind === 'docs' || kind === 'config')) return 'config-only';
  if (!all.includes('test')) return 'no-test-change';
  if (!all.includes('source')) return 'no-source-change';
  return undefined;
}

/** A cached result, or undefined when there is none or it cannot be read: it is then made again. */
async function readCached<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}

/** The version of a cached validation result: a new one validates again. */
const validationFormat = 2;

interface Pending {
  record: PrRecord;
  runnable: string[];
}

/**
 * Mines a repository's first-parent history in a window into a SWE-STEPS dataset directory:
 * detect PRs, describe each (Table 4), exclude what cannot be a step, validate the rest in
 * Docker, and cut the validated PRs into chains. Validation results are cached by commit and
 * options, so mining the same window again re-validates nothing.
 */
export async function mine(options: MineOptions): Promise<Manifest> {
  const started = Date.now();
  const at = (path: string) => resolve(options.cwd ?? '.', path);
  const out = at(options.out);
  const cacheDir = at(options.cacheDir ?? join(out, 'cache'));
  const rules: PathRules = { ...defaultPathRules, ...options.rules };
  const kindOf = classifier(rules);
  const { start, end } = windowBounds(options.since, options.until);
  const repo = at(options.repo);
  if (!existsSync(repo)) throw new MineInputError(`${options.repo}: no such repository or bundle`);
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
  const git = await mirror(repo, cacheDir);
  const branch = options.branch ?? (await defaultBranch(git));
  const history = (await firstParentHistory(git, branch)).filter((commit) => {
    const time = Date.parse(commit.date);
    return time >= start && time <= end;
  });
  const name = options.name ?? nameOf(repo);

  const records: PrRecord[] = [];
  const pending: Pending[] = [];
  const inputs: ChainInput[] = [];
  for (const commit of history) {
    const detected = detectPr(commit.message);
    const changed = commit.parent
      ? (await git.run(['diff', '--name-only', '--no-renames', '-z', commit.parent, commit.sha]))
          .split('\0')
          .filter(Boolean)
      : [];
    const kinds = new Map(changed.map((path) => [path, kindOf(path)] as const));
    const docsOrConfigOnly = [...kinds.values()].every((kind) => kind === 'docs' || kind === 'config');
    if (!detected || !commit.parent) {
      inputs.push({ commit: commit.sha, parent: commit.parent, validated: false, docsOrConfigOnly });
      continue;
    }
    const filesOf = (wanted: (kind: FileKind) => boolean) =>
      changed.filter((path) => wanted(kinds.get(path)!));
    const testFiles = filesOf((kind) => kind === 'test');
    const diff = async (paths: string[]) =>
      paths.length === 0
        ? ''
        : git.run(['diff', '--binary', '--no-renames', commit.parent, commit.sha, '--', ...paths]);
    const changes: DefinitionChanges = { added: [], modified: [], deleted: [] };
    for (const path of filesOf((kind) => kind === 'source').filter(definitionsSupported)) {
      const found = diffDefinitions(
        path,
        await git.show(commit.parent, path),
        await git.show(commit.sha, path),
      );
      changes.added.push(...found.added);
      changes.modified.push(...found.modified);
      changes.deleted.push(...found.deleted);
    }
    const text = texts.get(detected.number);
    const issues = text?.issues ?? [];
    const title = text?.title ?? detected.title;
    const body = text?.body ?? detected.body;
    const record: PrRecord = {
      commit_id: commit.sha,
      parent_id: commit.parent,
      pr_number: detected.number,
      prs: { number: detected.number, title, body, style: detected.style, issues },
      merged_at: commit.date,
      changed_files: changed,
      test_files: testFiles,
      changes,
      pass_to_pass: [],
      fail_to_pass: [],
      fix_patch: await diff(filesOf((kind) => kind !== 'test')),
      test_patch: await diff(testFiles),
      all_texts: {
        title,
        body,
        issues: issues.map((issue) => `#${issue.number} ${issue.title}\n\n${issue.body}`.trim()),
        docs: addedLines(await diff(filesOf((kind) => kind === 'docs')), 4000),
      },
      status: 'excluded',
      dropped_tests: [],
    };
    records.push(record);
    const early = excludedBeforeRunning(kinds);
    const runnable: string[] = [];
    const support: string[] = [];
    for (const path of testFiles) {
      if ((await git.show(commit.sha, path)) === undefined) continue;
      (isTestModule(path) ? runnable : support).push(path);
    }
    record.test_modules = runnable;
    record.support_files = support;
    if (early) record.excluded = { reason: early, detail: `changed: ${changed.join(', ')}` };
    else if (runnable.length === 0)
      record.excluded = { reason: 'no-test-change', detail: 'no test module is added or changed' };
    else pending.push({ record, runnable });
    inputs.push({
      commit: commit.sha,
      parent: commit.parent,
      pr: detected.number,
      validated: false,
      docsOrConfigOnly,
    });
  }
  options.progress?.({ phase: 'history', commits: history.length, prs: records.length });

  let done = 0;
  let fromCache = 0;
  let runtime: Runtime | undefined;
  const validationDir = join(cacheDir, 'validation');
  await mkdir(validationDir, { recursive: true });
  const total = records.length;
  done = records.length - pending.length;
  await pool(pending, options.concurrency ?? mineDefaults.concurrency, async ({ record, runnable }) => {
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
    const cacheFile = join(validationDir, `${record.commit_id}-${key.slice(0, 16)}.json`);
    let result = await readCached<ValidationResult>(cacheFile);
    const cached = result !== undefined;
    if (result === undefined) {
      const previousTests = new Map<string, string | undefined>();
      for (const path of runnable) previousTests.set(path, await git.show(record.parent_id, path));
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
      );
      await writeJsonAtomic(cacheFile, result);
    } else fromCache++;
    runtime ??= result.environment;
    record.fail_to_pass = result.f2p;
    record.pass_to_pass = result.p2p;
    record.dropped_tests = result.dropped;
    if (result.excluded) record.excluded = result.excluded;
    else record.status = 'validated';
    done++;
    options.progress?.({
      phase: 'pr',
      done,
      total,
      pr: record.pr_number,
      outcome: record.excluded?.reason ?? 'validated',
      cached,
    });
  });

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

  const imageId = built?.imageId ?? (await imageIdOf(settings.image));
  const excluded: Record<string, number> = {};
  for (const record of records)
    if (record.excluded) excluded[record.excluded.reason] = (excluded[record.excluded.reason] ?? 0) + 1;
  const manifest: Manifest = {
    format: datasetFormat,
    repository: { name, source: repo, branch, head },
    window: { since: options.since, until: options.until },
    options: { ...settings, ...chainOptions, rules, ...(options.recipe ? { recipe: options.recipe } : {}) },
    environment: {
      image: settings.image,
      ...(imageId ? { imageId } : {}),
      ...(built ? { recipeHash: built.recipeHash } : {}),
      ...(runtime ? { runtime } : {}),
      setup: settings.setup,
      toolchains: ['python', 'pytest', 'git'],
    },
    tests: { command: settings.command, timeoutSeconds: settings.timeoutSeconds },
    stats: {
      commits: history.length,
      prsSeen: records.length,
      excluded,
      validated: records.filter((record) => record.status === 'validated').length,
      validatedNow: pending.length - fromCache,
      fromCache,
      testsDropped: records.reduce((sum, record) => sum + record.dropped_tests.length, 0),
      chains: chains.length,
      prsInChains: chains.reduce((sum, chain) => sum + chain.prs.length, 0),
      wallSeconds: Math.round((Date.now() - started) / 100) / 10,
    },
    prs: records,
    chains,
  };
  await writeJsonAtomic(join(out, manifestFile), manifest);
  options.progress?.({ phase: 'written', dir: out });
  return manifest;
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

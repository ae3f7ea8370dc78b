import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  ConfigError,
  type ConfigIssue,
  readYaml,
  type Source,
  type SourceContext,
  type Step,
  sha256,
  type Task,
} from '@longhaul/core';
import { bundleFile, type Chain, type Manifest, manifest, manifestFile, type PrRecord } from './dataset.js';
import { Git } from './git.js';
import { locatedError } from './located.js';
import type { SweStepsOptions } from './options.js';
import { classifier, defaultPathRules, isTestModule, type PathRules } from './path-rules.js';
import { renderPrd, renderRequest } from './request.js';

/** What a step's cases directory holds in suite.json (files/ holds every path it names). */
export interface Suite {
  pr: number;
  /** The PR's runnable test modules: the runner's arguments. */
  testFiles: string[];
  /** The PR's other test files (fixtures, data, conftest, helpers): written, never arguments. */
  supportFiles: string[];
  /**
   * The other test files of this PR's gold tree that the chain's commits do not all hold alike
   * (hidden by another step, changed or removed by a later commit): written so the PR's tests
   * find what they import and read, as the PR left it.
   */
  restore: string[];
  /** The PR's test modules a later commit of the chain changes or removes (PRD leaves their tests out). */
  changedLater: string[];
  f2p: string[];
  p2p: string[];
  command: string[];
  /**
   * The globs that make a path a test file in this dataset: the scorer restores every such file
   * (and every conftest.py) to the PR's gold tree before it runs, whatever the agent did to them.
   */
  testRules: string[];
  /** The interpreter and pytest validation ran (the scorer records whether its run matched). */
  validatedWith?: { python: string; pytest: string; executable: string; image?: string };
}

/**
 * What a dataset's tests were validated with, in words, for an environment that runs no image to
 * warn with (EnvironmentNeeds.validatedIn); undefined when mining recorded no image.
 */
export function validatedIn(dataset: string, environment: Manifest['environment']): string | undefined {
  if (environment.image === undefined) return undefined;
  const runtime = environment.runtime;
  const versions = runtime ? ` (Python ${runtime.python}, pytest ${runtime.pytest})` : '';
  return `dataset ${dataset} was validated in image ${environment.image}${versions}`;
}

/** The version of what load writes (trees, cases, suite.json): a new one never reuses an older cache. */
const layout = 'swe-steps-cases/5';

/** The test-path globs the dataset was mined with (older manifests: the defaults). */
function testGlobsOf(data: Manifest): string[] {
  const rules = data.options.rules as Partial<PathRules> | undefined;
  const tests = Array.isArray(rules?.tests) ? rules.tests.filter((glob) => typeof glob === 'string') : [];
  return tests.length > 0 ? tests : defaultPathRules.tests;
}

/** Whether a path is a test file by the rules the dataset was mined with. */
function testRulesOf(data: Manifest): (path: string) => boolean {
  const kindOf = classifier({ ...defaultPathRules, tests: testGlobsOf(data) });
  return (path) => kindOf(path) === 'test';
}

/** Path → blob id of every file of `commit` that the test rules match. */
async function testBlobs(git: Git, commit: string, isTest: (path: string) => boolean) {
  const blobs = new Map<string, string>();
  for (const entry of (await git.run(['ls-tree', '-r', '-z', commit])).split('\0')) {
    const match = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match && isTest(match[2]!)) blobs.set(match[2]!, match[1]!);
  }
  return blobs;
}

/** Builds `dir` once: into a temporary sibling, then renamed into place (a concurrent load may win). */
async function once(dir: string, build: (tmp: string) => Promise<void>): Promise<void> {
  if (existsSync(dir)) return;
  await mkdir(dirname(dir), { recursive: true });
  const tmp = await mkdtemp(`${dir}.partial-`);
  try {
    await build(tmp);
    await rename(tmp, dir).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(dir)) throw error;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * SWE-STEPS tasks from a dataset directory that `longhaul swe-steps mine` wrote: one task per
 * chain, one step per PR. The seed is the chain's base tree without any git metadata, so no later
 * commit is reachable from the workspace; each step's solution is the gold tree after its PR and
 * its cases directory holds suite.json and the PR's test files, which the step hides from the
 * agent's workspace.
 */
export class SweStepsSource implements Source {
  constructor(private readonly options: SweStepsOptions) {}

  async load(ctx: SourceContext): Promise<Task[]> {
    const dataset = resolve(ctx.baseDir, this.options.path);
    const file = join(dataset, manifestFile);
    const text = await readFile(file, 'utf8').catch(() => {
      throw new ConfigError([
        {
          file: dataset,
          key: 'path',
          message: `is not a SWE-STEPS dataset: it has no ${manifestFile} (make one with \`longhaul swe-steps mine\`)`,
        },
      ]);
    });
    const data = await this.read(file);
    if (!existsSync(join(dataset, bundleFile)))
      throw new ConfigError([
        { file: join(dataset, bundleFile), message: 'missing: the dataset has no repository bundle' },
      ]);
    const hash = sha256(`${layout}\0${text}`);
    const cache = join(resolve(ctx.baseDir, this.options.cacheDir), hash.slice(0, 16));
    const repo = join(cache, 'repo.git');
    await once(repo, async (tmp) => {
      await rm(tmp, { recursive: true });
      await new Git(dataset).run(['clone', '--quiet', '--bare', join(dataset, bundleFile), tmp]);
    });
    const git = new Git(repo);
    const byNumber = new Map(data.prs.map((pr) => [pr.pr_number, pr]));
    const tasks: Task[] = [];
    for (const chain of data.chains) {
      const prs = chain.prs.map((number) => byNumber.get(number)!);
      tasks.push(await this.task(data, chain, prs, { dataset, cache, git, hash }));
    }
    return tasks;
  }

  private async read(file: string): Promise<Manifest> {
    const yaml = await readYaml(file);
    const parsed = manifest.safeParse(yaml.value);
    if (!parsed.success) throw locatedError(yaml, parsed.error);
    const data = parsed.data;
    const issues: ConfigIssue[] = [];
    const byNumber = new Map(data.prs.map((pr) => [pr.pr_number, pr]));
    const seen = new Set<string>();
    data.chains.forEach((chain, c) => {
      if (seen.has(chain.id))
        issues.push(yaml.issue(['chains', c, 'id'], `duplicate chain id '${chain.id}'`));
      seen.add(chain.id);
      chain.prs.forEach((number, p) => {
        const pr = byNumber.get(number);
        if (!pr) issues.push(yaml.issue(['chains', c, 'prs', p], `PR #${number} is not in prs`));
        else if (pr.status !== 'validated')
          issues.push(
            yaml.issue(['chains', c, 'prs', p], `PR #${number} was not validated (${pr.excluded?.reason})`),
          );
      });
      const first = byNumber.get(chain.prs[0]!);
      if (first && first.parent_id !== chain.base)
        issues.push(
          yaml.issue(['chains', c, 'base'], `is not the parent of the chain's first PR #${first.pr_number}`),
        );
    });
    if (issues.length > 0) throw new ConfigError(issues);
    return data;
  }

  private async task(
    data: Manifest,
    chain: Chain,
    prs: PrRecord[],
    where: { dataset: string; cache: string; git: Git; hash: string },
  ): Promise<Task> {
    const { git, cache } = where;
    const tree = (commit: string) => join(cache, 'trees', commit);
    const extract = (commit: string) => once(tree(commit), (tmp) => git.extract(commit, tmp));
    await extract(chain.base);
    const request = { filepaths: this.options.filepaths };
    const steps: Step[] = [];
    const hiddenOf = new Map<PrRecord, { modules: string[]; support: string[] }>();
    for (const pr of prs) {
      await extract(pr.commit_id);
      const left = pr.test_files.filter((path) => existsSync(join(tree(pr.commit_id), path)));
      hiddenOf.set(pr, {
        modules: pr.test_modules ?? left.filter(isTestModule),
        support: pr.support_files ?? left.filter((path) => !isTestModule(path)),
      });
    }
    // What a PR's tests may read or import besides its own files: every test file (by the mined
    // rules) that the chain's commits do not all hold alike. Another step may hide it, a later
    // commit may change or remove it (a helper replaced by a conftest.py), an earlier one may have
    // added it; whichever setting the agent worked in, the PR is scored with the versions of its
    // own gold tree. Files every commit holds alike are in the seed and stay as the agent left them.
    const isTest = testRulesOf(data);
    const blobs = new Map<string, Map<string, string>>();
    for (const commit of [chain.base, ...prs.map((pr) => pr.commit_id)])
      blobs.set(commit, await testBlobs(git, commit, isTest));
    const trees = [...blobs.values()];
    const varying = new Set<string>();
    for (const tree of trees)
      for (const [path, blob] of tree) if (trees.some((other) => other.get(path) !== blob)) varying.add(path);
    for (const hidden of hiddenOf.values())
      for (const path of [...hidden.modules, ...hidden.support]) varying.add(path);
    for (const [index, pr] of prs.entries()) {
      const { modules: testFiles, support: supportFiles } = hiddenOf.get(pr)!;
      const own = new Set([...testFiles, ...supportFiles]);
      const gold = blobs.get(pr.commit_id)!;
      const restore = [...varying].filter((path) => !own.has(path) && gold.has(path)).sort();
      const after = prs.slice(index + 1).map((next) => blobs.get(next.commit_id)!);
      const changedLater = testFiles.filter((path) =>
        after.some((tree) => tree.get(path) !== gold.get(path)),
      );
      const suite: Suite = {
        pr: pr.pr_number,
        testFiles,
        supportFiles,
        restore,
        changedLater,
        f2p: pr.fail_to_pass,
        p2p: pr.pass_to_pass,
        command: data.tests.command,
        testRules: testGlobsOf(data),
        ...(data.environment.runtime
          ? {
              validatedWith: {
                ...data.environment.runtime,
                ...(data.environment.image ? { image: data.environment.image } : {}),
              },
            }
          : {}),
      };
      const cases = join(cache, 'cases', pr.commit_id);
      await once(cases, async (tmp) => {
        await mkdir(join(tmp, 'files'));
        const files = [...own, ...restore];
        if (files.length > 0) await git.extract(pr.commit_id, join(tmp, 'files'), files);
        await writeFile(join(tmp, 'suite.json'), `${JSON.stringify(suite, null, 2)}\n`);
      });
      steps.push({
        id: `pr-${pr.pr_number}`,
        index,
        title: pr.prs.title,
        prompt: renderRequest(pr, request),
        solution: tree(pr.commit_id),
        cases,
        hidden: [...testFiles, ...supportFiles],
        metadata: {
          sweSteps: {
            pr: pr.pr_number,
            title: pr.prs.title,
            commit: pr.commit_id,
            parent: pr.parent_id,
            ...(pr.category ? { category: pr.category } : {}),
            testFiles,
            supportFiles,
            f2p: pr.fail_to_pass,
            p2p: pr.pass_to_pass,
          },
        },
      });
    }
    const name = data.repository.name;
    const validated = validatedIn(where.dataset, data.environment);
    const numbers = prs.map((pr) => pr.pr_number);
    return {
      id: `${name}-${chain.id}`,
      title: `${name} ${chain.id}: ${prs.length} PRs (#${numbers.join(', #')})`,
      description: prs.map((pr) => pr.prs.title).join('; '),
      source: 'swe-steps',
      root: where.dataset,
      entrypoint: '',
      language: 'python',
      environment: {
        ...(data.environment.image ? { image: data.environment.image } : {}),
        ...(validated ? { validatedIn: validated } : {}),
        setup: data.environment.setup,
        toolchains: data.environment.toolchains,
      },
      seed: tree(chain.base),
      steps,
      fullSpec: renderPrd(prs, request),
      timeouts: { caseMs: data.tests.timeoutSeconds * 1000 },
      hash: sha256(`${where.hash}\0${chain.id}\0${JSON.stringify(request)}`),
      metadata: { sweSteps: { repository: name, base: chain.base, chain: chain.id, prs: numbers } },
    };
  }
}

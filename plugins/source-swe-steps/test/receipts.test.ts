import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, workspaceRoot } from '@longhaul/testkit/build';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../src/index.js';
import { dockerReady } from './base-image.js';
import { buildReceipts, writeReceiptsRecipe, writeTree } from './receipts.js';

// End to end through the real CLI and Docker: `swe-steps mine` over the receipts repository with
// and without its environment recipe, `swe-steps report --check` on the mined dataset, and PRD
// for an agent that writes only the source. Mining, the check and the run take about two minutes.
const root = workspaceRoot(import.meta.dirname);
const bin = join(root, 'core/cli/bin/longhaul.js');
/** What `swe-steps mine` loads: the CLI, the source's command, the docker environment. */
const mining = ['core/cli', 'plugins/source-swe-steps', 'plugins/environment-docker'];
/** What the check adds: the gateway of its scripted agent, the harnesses, scripts and scorer. */
const checking = [
  'core/gateway',
  'harnesses/oracle',
  'harnesses/ide',
  'plugins/scripts',
  'plugins/scorer-swe-steps',
];

interface CheckJson {
  prs: { pr: number; status: string; excluded?: string; dropped: { id: string; reason: string }[] }[];
  check: {
    prs: Record<string, Record<string, Record<string, { success: boolean; f2p: number | null }>>>;
    totals: {
      agent: string;
      setting: string;
      prs: number;
      solved: number;
      tasks: number;
      tasksCompleted: number;
      f2p: number | null;
    }[];
  };
}

let work = '';
let withRecipe = '';
let bare = '';
let bareStdout = '';
let runDir = '';
let manifest: Manifest;
let checked: CheckJson;
let checkExit = 0;
let sourceOnly = '';

/**
 * PRD for an agent that writes the chain's source files as the last PR leaves them and no test,
 * helper or data file: each PR passes only if it is scored with the helper and the receipts its
 * own tree has, which the final state lacks.
 */
async function sourceOnlyExperiment(): Promise<string> {
  const writes = [];
  for (const file of ['receipts/total.py', 'receipts/money.py', 'receipts/convert.py']) {
    const content = (
      await promisify(execFile)('git', ['show', `HEAD:${file}`], { cwd: join(work, 'receipts') })
    ).stdout;
    writes.push({ name: 'write_file', input: { file_path: file, content, explanation: `Write ${file}` } });
  }
  return [
    'name: swe-steps-source-only',
    `source: { id: swe-steps, options: { path: ${JSON.stringify(withRecipe)}, cacheDir: ${JSON.stringify(join(work, 'tasks'))} } }`,
    'models:',
    '  sourceonly:',
    '    backend: scripted',
    // Single-shot plans in a first turn, then implements.
    '    replies:',
    '      - { text: "Plan: totals, then money formatting, then conversion." }',
    `      - { toolCalls: ${JSON.stringify(writes)} }`,
    '      - { text: "I wrote totals, money formatting and conversion." }',
    'harness:',
    '  - { id: ide, label: sourceonly, options: { model: sourceonly } }',
    'environment: docker',
    'script:',
    '  - { id: single-shot, label: prd, options: { prompt: swe-steps } }',
    'scorers: [swe-steps]',
    'reporters: []',
    'limits: { turnsPerStep: 1, trialUsd: 0 }',
    '',
  ].join('\n');
}

const longhaul = (...args: string[]) =>
  promisify(execFile)(process.execPath, [bin, ...args], {
    cwd: work,
    timeout: 900_000,
    maxBuffer: 16 * 1024 * 1024,
  });

const mine = (out: string, ...extra: string[]) =>
  longhaul(
    'swe-steps',
    'mine',
    join(work, 'receipts'),
    '--since',
    '2025-02-01',
    '--until',
    '2025-02-28',
    '--out',
    out,
    '--fold',
    'all',
    '--reruns',
    '0',
    '--jobs',
    '2',
    ...extra,
  );

beforeAll(async () => {
  if (!dockerReady) return;
  await ensureBuilt([...mining, ...checking], root);
  work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-receipts-'));
  await buildReceipts(work);
  const dockerfile = await writeReceiptsRecipe(join(work, 'recipe'));
  withRecipe = join(work, 'dataset');
  bare = join(work, 'bare');
  await mine(withRecipe, '--dockerfile', dockerfile);
  ({ stdout: bareStdout } = await mine(bare));
  manifest = JSON.parse(await readFile(join(withRecipe, 'dataset.json'), 'utf8'));
  runDir = join(work, 'check');
  const check = await longhaul(
    'swe-steps',
    'report',
    withRecipe,
    '--check',
    '--json',
    '--run-dir',
    runDir,
  ).catch((error: { code?: number; stdout?: string }) => {
    checkExit = error.code ?? -1;
    return { stdout: error.stdout ?? '' };
  });
  checked = JSON.parse(check.stdout);
  await writeFile(join(work, 'source-only.yaml'), await sourceOnlyExperiment());
  sourceOnly = join(work, 'source-only');
  // A PR it fails ends the run non-zero: the test below says which.
  await longhaul('run', join(work, 'source-only.yaml'), '--run-dir', sourceOnly).catch(() => undefined);
}, 1_500_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The run's trial directory of one agent in one setting (its condition: `agent/setting/memory`). */
async function trialDir(agent: string, setting: string, run = join(runDir, 'run')): Promise<string> {
  const trials = join(run, 'trials');
  for (const id of await readdir(trials)) {
    const trial = JSON.parse(await readFile(join(trials, id, 'trial.json'), 'utf8'));
    if (trial.condition === `${agent}/${setting}/none`) return join(trials, id);
  }
  throw new Error(`no ${agent}/${setting} trial in ${trials}`);
}

/** The step directories of a trial, in chain order. */
async function stepDirs(trial: string): Promise<string[]> {
  return (await readdir(join(trial, 'steps'))).sort().map((name) => join(trial, 'steps', name));
}

describe.skipIf(!dockerReady)('the receipts repository mined and checked through the CLI (Docker)', () => {
  it('with the recipe every PR validates, in one chain folding the direct commit, in the image it built', () => {
    expect(manifest.prs.map((pr) => [pr.pr_number, pr.status])).toEqual([
      [1, 'validated'],
      [2, 'validated'],
      [3, 'validated'],
    ]);
    expect(manifest.chains.map((chain) => chain.prs)).toEqual([[1, 2, 3]]);
    // The helper and the receipt are support files: hidden and restored, never handed to pytest.
    const first = manifest.prs[0]!;
    expect(first.test_modules).toEqual(['tests/test_total.py']);
    expect(first.support_files).toEqual(['tests/files/groceries.txt', 'tests/helpers.py']);
    expect(manifest.prs[2]!.fail_to_pass).toEqual([
      'tests/test_convert.py::test_convert_groceries_to_dollars',
      'tests/test_convert.py::test_convert_unknown_currency',
    ]);
    expect(manifest.environment.image).toMatch(/^longhaul\/swe-steps-receipts:[0-9a-f]{12}$/);
    expect(manifest.environment.recipeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.environment.imageId).toMatch(/^sha256:/);
    expect(manifest.environment.runtime?.executable).toMatch(/python/);
  });

  it('without the recipe the PR that needs the package is excluded, its drop naming the import', async () => {
    const report = JSON.parse((await longhaul('swe-steps', 'report', bare, '--json')).stdout) as CheckJson;
    const third = report.prs.find((pr) => pr.pr === 3)!;
    expect(third).toMatchObject({ status: 'excluded', excluded: 'no-fail-to-pass' });
    expect(third.dropped).toEqual([
      { id: 'tests/test_convert.py', reason: "import-error: No module named 'fxrates'" },
    ]);
    expect(report.prs.filter((pr) => pr.status === 'validated').map((pr) => pr.pr)).toEqual([1, 2]);
    expect(bareStdout).toContain(
      "warning: PR #3: 1 of 1 tests dropped for the environment (import-error: No module named 'fxrates'): give mining a recipe",
    );
  });

  it('the recipe builds without network: one that downloads fails, saying how to allow it', async () => {
    const recipe = join(work, 'downloads');
    await writeTree(recipe, {
      Dockerfile: 'ARG LONGHAUL_BASE\nFROM $LONGHAUL_BASE\nRUN getent hosts deb.debian.org\n',
    });
    const failed = await mine(join(work, 'offline'), '--dockerfile', join(recipe, 'Dockerfile')).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('(no network: pass --build-network if it downloads)');
  });

  it('the oracle solves every PR and task in individual, global and PRD; doing nothing passes no F2P test', () => {
    const totals = Object.fromEntries(
      checked.check.totals.map((total) => [`${total.agent}/${total.setting}`, total]),
    );
    for (const setting of ['individual', 'global', 'prd']) {
      expect(totals[`oracle/${setting}`]).toMatchObject({
        prs: 3,
        solved: 3,
        tasks: 1,
        tasksCompleted: 1,
        f2p: 100,
      });
      expect(totals[`nochange/${setting}`]).toMatchObject({ prs: 3, solved: 0, f2p: 0 });
    }
    expect(checkExit).toBe(0);
  });

  it('in individual, a step’s diff is the agent’s own change; the reset to the last PR’s gold tree is apart', async () => {
    const [, oracle] = await stepDirs(await trialDir('oracle', 'individual'));
    const diff = await readFile(join(oracle!, 'diff.patch'), 'utf8');
    // PR #2's change, and nothing of PR #1's that the oracle wrote in the step before.
    expect(diff).toContain('+++ b/receipts/money.py');
    expect(diff).not.toContain('receipts/total.py');
    const nochange = await stepDirs(await trialDir('nochange', 'individual'));
    for (const step of nochange) expect(await readFile(join(step, 'diff.patch'), 'utf8')).toBe('');
    // The agent that changes nothing was given PR #1's gold tree for PR #2: the runner's doing.
    const reset = await readFile(join(nochange[1]!, 'reset.patch'), 'utf8');
    expect(reset).toContain('+++ b/receipts/total.py');
    expect(reset).toContain('+++ b/tests/helpers.py');
  });

  it('every PR is scored in the environment mining validated it in, on all its F2P tests', async () => {
    for (const agent of ['oracle', 'nochange'])
      for (const setting of ['individual', 'global', 'prd']) {
        const steps = await stepDirs(await trialDir(agent, setting));
        expect(steps).toHaveLength(3);
        for (const [index, step] of steps.entries()) {
          const scores = JSON.parse(await readFile(join(step, 'scores.json'), 'utf8'));
          const detail = scores.details['swe-steps'].success;
          expect(detail.environment.same, `${step}/scores.json`).toBe(true);
          expect(detail.environment.validated).toMatchObject(detail.environment.scored);
          expect(detail.environment.validated.image).toBe(manifest.environment.image);
          // PRD too: PR #1's and PR #2's helper and data files are gone from the final state,
          // their tests run with them as their PR left them.
          expect(Object.keys(detail.f2p).sort()).toEqual(manifest.prs[index]!.fail_to_pass);
        }
      }
  });

  it('in PRD, an agent that writes only the source passes every PR: each is scored with its own helper and data', async () => {
    const trial = JSON.parse(
      await readFile(join(await trialDir('sourceonly', 'prd', sourceOnly), 'trial.json'), 'utf8'),
    );
    expect(
      trial.steps.map((step: { scores: Record<string, unknown> }) => step.scores['swe-steps.success']),
    ).toEqual([1, 1, 1]);
  });
});

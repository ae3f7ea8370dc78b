import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildRunModel, loadRun } from '@longhaul/report';
import { describe, expect, it } from 'vitest';
import { quickstartPackages, repoRoot, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';

const quickstart = join(repoRoot, 'examples/quickstart.yaml');
const trial = 'worklog.oracle.checkpoints.none.r1';

const work = workDir('longhaul-regrade-', [...quickstartPackages, 'core/report', 'plugins/scorer-quality']);

type Scores = Record<string, number | boolean | null>;
const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, 'utf8')) as T;
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Every file of the run that a regrade must leave as it was, with its content. */
async function untouched(runDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of ['events.jsonl', 'summary.json', `trials/${trial}/trial.json`])
    files[name] = await readFile(join(runDir, name), 'utf8');
  for (const step of await readdir(join(runDir, 'trials', trial, 'steps')))
    files[step] = await readFile(join(runDir, 'trials', trial, 'steps', step, 'scores.json'), 'utf8');
  return files;
}

/** Per step folder: the scores a regrade gave it. */
async function regraded(runDir: string, id: string): Promise<Record<string, Scores>> {
  const out: Record<string, Scores> = {};
  for (const step of await readdir(join(runDir, 'trials', trial, 'steps'))) {
    const file = join(runDir, 'trials', trial, 'steps', step, 'regrades', id, 'scores.json');
    if (await exists(file)) out[step] = (await readJson<{ scores: Scores }>(file)).scores;
  }
  return out;
}

/** What `regression: false` should make of a step's scores: no regression case counted. */
const withoutRegression = (scores: Scores) =>
  Object.fromEntries(
    Object.entries(scores).map(([key, value]) => [key, key.startsWith('tests.regression.') ? 0 : value]),
  );

describe('longhaul regrade', () => {
  it('re-scores every step with a changed scorer option, runs no agent, keeps the originals, survives SIGKILL', async () => {
    const runDir = join(work(), 'run');
    const run = await spawnCli(['run', quickstart, '--run-dir', runDir], repoRoot).done;
    expect(run.code, run.stderr).toBe(0);
    const before = await untouched(runDir);
    const scorers = ['--scorers', '[{id: tests, options: {regression: false}}]'];

    const whole = await spawnCli(['regrade', runDir, ...scorers], repoRoot).done;
    expect(whole.code, whole.stderr).toBe(0);
    const id = /regrade (regrade-[\w-]+): 4 steps \(0 from an earlier attempt\)/.exec(whole.stdout)?.[1];
    expect(id, whole.stdout).toBeDefined();
    // The trial heads its steps; each step names only the scores that changed, then a table per
    // condition sums them up.
    const lines = whole.stdout.split('\n');
    expect(lines.slice(0, 2), whole.stdout).toEqual([
      trial,
      `   1 csv-summary${' '.repeat(6)}  ok  no score changed`,
    ]);
    for (const [n, step] of ['jsonl-and-filters', 'store-and-formats', 'budgets'].entries())
      expect(lines[n + 2], whole.stdout).toMatch(
        new RegExp(`^ {3}${n + 2} ${step} +ok {2}(tests\\.regression\\.[a-z]+ [\\d.]+ → 0(, |$))+$`),
      );
    expect(lines[5]).toBe('');
    expect(lines[6]).toMatch(/^CONDITION +SCORE +CHANGED +MEAN BEFORE +MEAN AFTER$/);
    expect(whole.stdout).toMatch(/\noracle\/checkpoints\/none +tests\.regression\.total +3\/4 +[\d.]+ +0\n/);
    expect(whole.stdout).toMatch(/\n\d+ other scores unchanged on every step\n/);

    // --json gives every step with its scores before and after.
    const json = await spawnCli(['regrade', runDir, ...scorers, '--id', 'as-json', '--json'], repoRoot).done;
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as {
      id: string;
      steps: { step: string; scores: Scores; before: { status: string; scores: Scores } }[];
    };
    expect(result.id).toBe('as-json');
    expect(result.steps.map((step) => step.step)).toEqual([
      'csv-summary',
      'jsonl-and-filters',
      'store-and-formats',
      'budgets',
    ]);
    expect(result.steps[1]!.scores).toEqual(withoutRegression(result.steps[1]!.before.scores));

    // Without regression cases, the regression counts drop to 0 and nothing else changes (the
    // oracle passes every case either way).
    const scores = await regraded(runDir, id!);
    const steps = Object.keys(scores).sort();
    expect(steps).toHaveLength(4);
    for (const step of steps) {
      const original = (
        await readJson<{ scores: Scores }>(join(runDir, 'trials', trial, 'steps', step, 'scores.json'))
      ).scores;
      expect(scores[step], step).toEqual(withoutRegression(original));
      if (step.startsWith('01-')) expect(scores[step]).toEqual(original);
      else expect(original['tests.regression.total']).toBeGreaterThan(0);
    }
    // No agent ran: no event, trial record, original score or gateway file was written.
    expect(await untouched(runDir)).toEqual(before);
    expect(await exists(join(runDir, 'gateway'))).toBe(false);

    // The report shows both: each original score and its regraded value beside it.
    const model = buildRunModel(await loadRun(runDir), 0);
    expect(model.scoreKeys).toContain('tests.strict');
    expect(model.scoreKeys).toContain(`tests.strict@${id}`);
    expect(model.trials[0]!.steps[1]!.scores).toMatchObject({
      'tests.regression.total': expect.any(Number),
      [`tests.regression.total@${id}`]: 0,
    });

    // A second regrade, killed once its first step is scored, then run again, finishes the same.
    const killed = spawnCli(['regrade', runDir, ...scorers], repoRoot);
    const deadline = Date.now() + 300_000;
    let second: string | undefined;
    while (Date.now() < deadline && second === undefined) {
      for (const name of await readdir(join(runDir, 'regrades'))) {
        if (name === id || name === 'as-json') continue;
        if (await exists(join(runDir, 'trials', trial, 'steps', steps[0]!, 'regrades', name, 'scores.json')))
          second = name;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(second, 'the second regrade scored its first step').toBeDefined();
    killed.child.kill('SIGKILL');
    await killed.done;
    expect(await exists(join(runDir, 'regrades', second!, 'scores.json'))).toBe(false);

    const again = await spawnCli(['regrade', runDir, ...scorers], repoRoot).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`regrade ${second}: 4 steps`);
    expect(again.stdout).toMatch(/4 steps \(([1-4]) from an earlier attempt\)/);
    expect(await regraded(runDir, second!)).toEqual(scores);
    expect(await untouched(runDir)).toEqual(before);
  }, 900_000);

  it('adds a scorer: only it scores, nothing about the reporters is checked, only its new scores are listed and they show under their own names', async () => {
    const runDir = join(work(), 'add');
    // A summary whose columns name the tests scorer's scores: a regrade must not check them.
    const columns = 'reporters=[{id: summary, options: {columns: [tests.pass_rate, tests.iso]}}]';
    const run = await spawnCli(['run', quickstart, '--run-dir', runDir, '--set', columns], repoRoot).done;
    expect(run.code, run.stderr).toBe(0);
    const added = await spawnCli(['regrade', runDir, '--add', '[quality]'], repoRoot).done;
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).not.toContain('columns');
    const lines = added.stdout.split('\n').slice(1, 5);
    for (const line of lines) {
      // Each step lists the quality scorer's new scores, none of the tests scorer's it left alone.
      expect(line, added.stdout).toMatch(/ {2}ok {2}quality\.\S+ - → /);
      expect(line, added.stdout).not.toContain('tests.');
    }
    expect(added.stdout).toMatch(/\noracle\/checkpoints\/none +quality\.erosion +4\/4 +- +[\d.]+\n/);
    expect(added.stdout).not.toMatch(/\n\S+ +tests\./);

    // In the report the added scores are scores like any other, under their own names.
    const model = buildRunModel(await loadRun(runDir), 0);
    expect(model.scoreKeys).toContain('quality.erosion');
    expect(model.scoreKeys.filter((key) => key.includes('@'))).toEqual([]);
    expect(model.stats.some((stat) => stat.key === 'quality.erosion')).toBe(true);
  }, 600_000);
});

import { access, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrialRecord } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import {
  fixtureExperiment,
  spawnCli,
  turnStarts,
  waitForEvent,
  workDir,
} from './fixtures/resume/spawn-cli.js';

const work = workDir('longhaul-run-');

const readTrial = async (runDir: string, id: string) =>
  JSON.parse(await readFile(join(runDir, 'trials', id, 'trial.json'), 'utf8')) as TrialRecord;

describe('longhaul run', () => {
  it('runs every trial into --run-dir, prints plain progress lines off a TTY and exits 0', async () => {
    const runDir = join(work(), 'plain');
    const result = await spawnCli(
      ['run', fixtureExperiment, '--run-dir', runDir, '--concurrency', '2'],
      work(),
    ).done;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('2 trials: ok, ok\n');
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe(`run ${runDir}: 2 trials`);
    expect(lines).toContain(
      'trial parts.fixture-writer.fixture-steps.fixture-none.r1: step 2 part-2 ok fixture-files.match=1',
    );
    expect(lines.filter((line) => / ok in \d+:\d\d, \$0\.000$/.test(line))).toHaveLength(2);
    expect(lines).toContain(`run directory: ${runDir}`);
    expect((await readdir(runDir)).sort()).toEqual([
      'events.jsonl',
      'experiment.yaml',
      'figures.json',
      'lock.json',
      'snapshots',
      'summary.json',
      'trials',
    ]);
  });

  it('leaves no run directory behind when the experiment does not validate', async () => {
    const bad = join(work(), 'bad.yaml');
    await writeFile(
      bad,
      (await readFile(fixtureExperiment, 'utf8'))
        .replace('./plugin', join(import.meta.dirname, 'fixtures/resume/plugin'))
        .replace('fixture-files', 'fixture-filez'),
    );
    const runDir = join(work(), 'never');
    const result = await spawnCli(['run', bad, '--run-dir', runDir], work()).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /bad\.yaml:\d+:\d+: scorers\[0\]: .*fixture-filez.*did you mean 'fixture-files'/,
    );
    await expect(access(runDir)).rejects.toThrow();
    expect(await readdir(work())).not.toContain('runs');
  });

  it("starts the gateway for an experiment's models: and stops it when the run ends", async () => {
    const runDir = join(work(), 'gateway');
    const models = '{fixture: {backend: scripted, replies: [{text: one}, {text: two}, {text: three}]}}';
    const args = [
      '--set',
      `models=${models}`,
      '--set',
      'harness.options.askModel=true',
      '--set',
      'repeats=1',
    ];
    const result = await spawnCli(['run', fixtureExperiment, '--run-dir', runDir, ...args], work()).done;
    expect(result.code, result.stderr).toBe(0);
    const id = 'parts.fixture-writer.fixture-steps.fixture-none.r1';
    const replies = [];
    for (const step of ['01-part-1', '02-part-2', '03-part-3']) {
      const lines = (await readFile(join(runDir, 'trials', id, 'steps', step, 'trajectory.jsonl'), 'utf8'))
        .trim()
        .split('\n');
      replies.push(
        ...lines
          .map((line) => JSON.parse(line))
          .filter((e) => e.role === 'assistant')
          .map((e) => e.text),
      );
    }
    expect(replies).toEqual(['one', 'two', 'three']);
  });

  it('leaves no run directory behind when the models: configuration is bad', async () => {
    const runDir = join(work(), 'bad-models');
    const args = ['--set', 'models={fixture: {backend: nonsense}}'];
    const result = await spawnCli(['run', fixtureExperiment, '--run-dir', runDir, ...args], work()).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--set:1:8: models\.fixture\.backend: unknown backend 'nonsense'/);
    await expect(access(runDir)).rejects.toThrow();
  });

  it('refuses a non-empty --run-dir that holds something else', async () => {
    const runDir = join(work(), 'occupied');
    await mkdir(runDir);
    await writeFile(join(runDir, 'notes.txt'), 'mine');
    const result = await spawnCli(['run', fixtureExperiment, '--run-dir', runDir], work()).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not empty');
    expect(await readdir(runDir)).toEqual(['notes.txt']);
  });

  it('on Ctrl-C lets the running turn finish, stops, exits 130 and can be resumed', async () => {
    const runDir = join(work(), 'interrupted');
    const args = ['run', fixtureExperiment, '--run-dir', runDir, '--set', 'harness.options.sleepMs=1500'];
    const run = spawnCli(args, work());
    const turn = await waitForEvent(runDir, (e) => e.type === 'turn.start', 120_000, run);
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('stopping: no new trials; running turns and scoring get 30s to finish');
    expect(result.stderr).toContain(`continue with: longhaul resume ${runDir}`);
    const trialId = turn.type === 'turn.start' ? turn.trialId : '';
    const record = await readTrial(runDir, trialId);
    expect(record.status).toBe('cancelled');
    expect(record.steps.map((s) => s.status)).toEqual(['ok', 'cancelled', 'cancelled']);
    expect((await readdir(join(runDir, 'trials'))).length).toBe(1);

    const resumed = await spawnCli(['resume', runDir], work()).done;
    expect(resumed.code).toBe(0);
    expect(Object.values(await turnStarts(runDir))).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('on a second Ctrl-C aborts the running turn at once', async () => {
    const runDir = join(work(), 'aborted');
    const args = ['run', fixtureExperiment, '--run-dir', runDir, '--set', 'harness.options.sleepMs=600000'];
    const run = spawnCli(args, work());
    const turn = await waitForEvent(runDir, (e) => e.type === 'turn.start', 120_000, run);
    run.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    const second = Date.now();
    run.child.kill('SIGINT');
    const result = await run.done;
    // Far less than the turn's 10 min: the second Ctrl-C aborted it.
    expect(Date.now() - second).toBeLessThan(120_000);
    expect(result.code).toBe(130);
    const trialId = turn.type === 'turn.start' ? turn.trialId : '';
    expect((await readTrial(runDir, trialId)).steps.map((s) => s.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
  });
});

import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type LockFile, RunStore, type StepScoresFile, sha256, startRun } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { makeFixture, matchScorer } from './fixture.js';

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('a run through the per-turn lifecycle', () => {
  it('runs every step, scores it and leaves the run store complete', async () => {
    const order: string[] = [];
    const fixture = await makeFixture({
      scorer: matchScorer({
        // scores.json must not exist while scorers run; snapshot and diff must.
        onScore: async (ctx) => {
          const stepDir = join(ctx.outDir, '..');
          order.push(
            `score ${ctx.step.id} scores.json=${await exists(join(stepDir, 'scores.json'))} snapshot=${await exists(join(stepDir, 'snapshot'))} diff=${await exists(join(stepDir, 'diff.patch'))}`,
          );
        },
      }),
    });
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(fixture.experiment, { runDir });

    expect(result.status).toBe('ok');
    expect(order).toEqual([
      'score part-1 scores.json=false snapshot=true diff=true',
      'score part-2 scores.json=false snapshot=true diff=true',
      'score part-3 scores.json=false snapshot=true diff=true',
    ]);
    const store = new RunStore(runDir);
    const [trial] = result.trials;
    expect(trial?.record.status).toBe('ok');
    expect(trial?.record.steps.map((s) => [s.id, s.status, s.turns, s.scores['match.match']])).toEqual([
      ['part-1', 'ok', 1, 1],
      ['part-2', 'ok', 1, 1],
      ['part-3', 'ok', 1, 1],
    ]);
    const saved = await store.readTrial(trial!.spec.id);
    expect(saved).toEqual(trial?.record);

    const step2 = fixture.task.steps[1]!;
    const scores = JSON.parse(
      await readFile(store.stepFile(trial!.spec.id, step2, 'scores.json'), 'utf8'),
    ) as StepScoresFile;
    expect(scores).toMatchObject({
      step: 'part-2',
      index: 1,
      status: 'ok',
      scores: { 'match.match': 1, 'match.files': 3 },
    });
    expect(scores.details).toEqual({ match: { files: ['README.md', 'part1.txt', 'part2.txt'] } });
    expect(store.stepDir(trial!.spec.id, step2)).toMatch(/steps\/02-part-2$/);
    const diff = await readFile(store.stepFile(trial!.spec.id, step2, 'diff.patch'), 'utf8');
    expect(diff).toContain(
      'diff --git a/part2.txt b/part2.txt\nnew file mode 100644\n--- /dev/null\n+++ b/part2.txt',
    );
    expect(diff).toContain('+part 2');
    expect(diff).not.toContain('part1.txt');
    const ref = (await readFile(store.stepFile(trial!.spec.id, step2, 'snapshot'), 'utf8')).trim();
    expect(await store.snapshots.has(ref)).toBe(true);
    expect(scores.snapshot).toBe(ref);
    expect(await readFile(store.stepFile(trial!.spec.id, step2, 'prompt.md'), 'utf8')).toBe('Write part 2.');

    const trajectory = await store.readTrajectory(trial!.spec.id, step2);
    expect(trajectory.map((e) => e.type)).toEqual(['session.start', 'message', 'turn.end']);
    expect(trajectory.every((e) => typeof e.ts === 'number')).toBe(true);

    // Scorer sandboxes were their own and got closed; the agent's sandbox was closed at the end.
    const opened = fixture.environments.flatMap((environment) => environment.opened);
    const purposes = opened.map((s) => s.spec.purpose);
    expect(purposes.filter((p) => p === 'agent')).toHaveLength(1);
    expect(purposes.filter((p) => p === 'scorer')).toHaveLength(3);
    expect(opened.every((s) => s.closed)).toBe(true);
  });

  it('emits run, trial, step and turn events in lifecycle order to events.jsonl and reporters', async () => {
    const fixture = await makeFixture({ steps: 2 });
    const runDir = join(fixture.dir, 'run');
    await startRun(fixture.experiment, { runDir });
    const events = await new RunStore(runDir).readEvents();
    const outline = events
      .filter((e) => e.type !== 'trajectory' && e.type !== 'log')
      .map((e) => ('step' in e ? `${e.type}:${e.step}` : 'phase' in e ? `${e.type}:${e.phase}` : e.type));
    expect(outline).toEqual([
      'run.start',
      'trial.start',
      'trial.phase:sandbox',
      'step.start:0',
      'turn.start',
      'trial.usage',
      'trial.phase:scoring',
      'step.end:0',
      'step.start:1',
      'turn.start',
      'trial.usage',
      'trial.phase:scoring',
      'step.end:1',
      'trial.end',
      'run.end',
    ]);
    expect(events.every((e) => !Number.isNaN(Date.parse(e.ts)))).toBe(true);
    const turnEnds = events.filter((e) => e.type === 'trajectory' && e.event.type === 'turn.end');
    expect(turnEnds).toHaveLength(2);
    // Reporters saw the same events and were finished once with every trial.
    expect(fixture.reporter.events.map((e) => e.type)).toEqual(events.map((e) => e.type));
    expect(fixture.reporter.reports).toHaveLength(1);
    expect(fixture.reporter.reports[0]!.trials.map((t) => t.record.status)).toEqual(['ok']);
  });

  it('writes lock.json with node, plugin packages, environment, harness and task hashes', async () => {
    const fixture = await makeFixture({
      steps: 2,
      harness: { prepare: { agent: 'fake', version: '9.9.9' } },
    });
    const runDir = join(fixture.dir, 'run');
    await startRun(fixture.experiment, { runDir });
    const lock = JSON.parse(await readFile(join(runDir, 'lock.json'), 'utf8')) as LockFile;
    expect(lock.node).toBe(process.version);
    expect(lock.experiment).toEqual({ name: 'fixture', file: fixture.experiment.file });
    expect(lock.plugins['harness:fake']).toEqual({
      kind: 'harness',
      id: 'fake',
      package: 'fake-harness',
      version: '0.0.1',
    });
    expect(Object.keys(lock.plugins).sort()).toEqual([
      'environment:fake',
      'harness:fake',
      'memory:none',
      'reporter:recording',
      'scorer:match',
      'script:steps',
    ]);
    expect(lock.environments).toEqual({ fake: { environment: 'fake' } });
    expect(lock.harnesses).toEqual({ fake: { agent: 'fake', version: '9.9.9' } });
    expect(lock.tasks).toEqual({
      count: {
        hash: 'count-hash-1',
        prompts: { 'part-1': sha256('Write part 1.'), 'part-2': sha256('Write part 2.') },
      },
    });
    expect(await readFile(join(runDir, 'experiment.yaml'), 'utf8')).toBe('name: fixture\n');
  });

  it('runs trials concurrently up to the limit', async () => {
    const fixture = await makeFixture({
      steps: 1,
      repeats: 4,
      harness: { turns: () => ({ writeSolution: true, sleepMs: 150 }) },
    });
    let running = 0;
    let peak = 0;
    const started = Date.now();
    const result = await startRun(fixture.experiment, {
      runDir: join(fixture.dir, 'run'),
      concurrency: 2,
      onEvent: (event) => {
        if (event.type === 'trial.start') peak = Math.max(peak, ++running);
        if (event.type === 'trial.end') running--;
      },
    });
    expect(result.trials.map((t) => t.record.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(peak).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});

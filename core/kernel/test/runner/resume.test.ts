import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConfigError,
  RunCancellation,
  type RunResult,
  RunStore,
  resumeExperiment,
  runIdOf,
  type StampedRunEvent,
  startRun,
  type TrialRecord,
} from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { type FixtureOptions, makeFixture, matchScorer, stepScript } from './fixture.js';

/** A trial record without the fields that depend on when it ran. */
function untimed(record: TrialRecord): unknown {
  const { startedAt, endedAt, durationMs, ...rest } = record;
  return {
    ...rest,
    steps: rest.steps.map(({ startedAt: _s, endedAt: _e, durationMs: _d, ...step }) => step),
  };
}

async function turnStartsPerStep(runDir: string): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (const event of await new RunStore(runDir).readEvents()) {
    if (event.type === 'turn.start') for (const step of event.steps) counts[step] = (counts[step] ?? 0) + 1;
  }
  return counts;
}

/** Stops the run once the turn of `stepIndex` starts. */
function stopAt(stepIndex: number, stop: (c: RunCancellation) => void) {
  const cancellation = new RunCancellation();
  return {
    cancellation,
    onEvent: (event: StampedRunEvent) => {
      if (event.type === 'turn.start' && event.steps.includes(stepIndex)) stop(cancellation);
    },
  };
}

async function uninterrupted(options: FixtureOptions): Promise<RunResult> {
  const fixture = await makeFixture(options);
  return startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
}

describe('resume', () => {
  it('continues an interrupted step from the last complete snapshot and never re-runs a complete step', async () => {
    let slow = true;
    const options: FixtureOptions = {
      harness: {
        turns: ({ prompt }) => ({
          writeSolution: true,
          sleepMs: slow && prompt.includes('part 2') ? 20_000 : 0,
        }),
      },
    };
    const fixture = await makeFixture(options);
    const runDir = join(fixture.dir, 'run');
    const first = await startRun(fixture.experiment, { runDir, ...stopAt(1, (c) => c.abort()) });

    expect(first.status).toBe('cancelled');
    expect(first.trials[0]!.record.status).toBe('cancelled');
    expect(first.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok', 'cancelled', 'cancelled']);
    const store = new RunStore(runDir);
    const trialId = first.trials[0]!.spec.id;
    expect(await store.readStepScores(trialId, fixture.task.steps[0]!)).toBeDefined();
    expect(await store.readStepScores(trialId, fixture.task.steps[1]!)).toBeUndefined();
    const step1Snapshot = first.trials[0]!.record.steps[0]!.snapshot;

    slow = false;
    const before = fixture.harnesses.length;
    const second = await resumeExperiment(fixture.experiment, runDir);
    expect(second.status).toBe('ok');
    expect(second.resumed).toBe(true);
    const resumedHarness = fixture.harnesses.slice(before).find((h) => h.prompts.length > 0)!;
    expect(resumedHarness.prompts).toEqual(['Write part 2.', 'Write part 3.']);
    const agentSandboxes = fixture.environments
      .flatMap((e) => e.opened)
      .filter((s) => s.spec.purpose === 'agent');
    expect(agentSandboxes.at(-1)!.spec.from).toBe(step1Snapshot);
    expect(await turnStartsPerStep(runDir)).toEqual({ 0: 1, 1: 2, 2: 1 });

    const reference = await uninterrupted({ harness: { turns: () => ({ writeSolution: true }) } });
    expect(untimed(second.trials[0]!.record)).toEqual(untimed(reference.trials[0]!.record));
    // The interrupted step's stale files were replaced, and its diff is against step 1.
    const trajectory = await store.readTrajectory(trialId, fixture.task.steps[1]!);
    expect(trajectory.filter((e) => e.type === 'turn.end')).toHaveLength(1);
  });

  it('on stop, lets the running turn finish within the grace period and starts nothing new', async () => {
    let slow = true;
    const fixture = await makeFixture({
      repeats: 2,
      harness: {
        turns: ({ prompt }) => ({
          writeSolution: true,
          sleepMs: slow && prompt.includes('part 2') ? 300 : 0,
        }),
      },
    });
    const runDir = join(fixture.dir, 'run');
    const first = await startRun(fixture.experiment, { runDir, ...stopAt(1, (c) => c.stop(10_000)) });
    expect(first.status).toBe('cancelled');
    expect(first.trials.map((t) => t.record.status)).toEqual(['cancelled', 'pending']);
    expect(first.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok', 'ok', 'cancelled']);

    slow = false;
    const second = await resumeExperiment(fixture.experiment, runDir);
    expect(second.trials.map((t) => t.record.status)).toEqual(['ok', 'ok']);
    expect(await turnStartsPerStep(runDir)).toEqual({ 0: 2, 1: 2, 2: 2 });
  });

  it('aborts the running turn as cancelled when the grace period runs out', async () => {
    const fixture = await makeFixture({
      harness: {
        turns: ({ prompt }) => ({ writeSolution: true, sleepMs: prompt.includes('part 2') ? 600_000 : 0 }),
      },
    });
    const started = Date.now();
    const result = await startRun(fixture.experiment, {
      runDir: join(fixture.dir, 'run'),
      ...stopAt(1, (c) => c.stop(150)),
    });
    // Far less than the turn's 10 min: the grace period ran out and the turn was aborted.
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(result.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok', 'cancelled', 'cancelled']);
  });

  it('leaves a step open when the run is aborted while it is scored after a fault, and resume runs it again', async () => {
    let attempt = 1;
    const cancellation = new RunCancellation();
    const fixture = await makeFixture({
      // The memory plugin fails before step 2's turn: the step is scored as it stands, after the loop.
      memory: {
        beforeTurn: async ({ turnIndex }) => {
          if (attempt === 1 && turnIndex === 1) throw new Error('memory store unreachable');
          return {};
        },
        afterTurn: async () => {},
      },
      scorer: matchScorer({
        onScore: async ({ step, signal }) => {
          if (attempt !== 1 || step.index !== 1) return;
          cancellation.abort();
          await new Promise((_, reject) => {
            if (signal?.aborted) reject(new Error('aborted'));
            signal?.addEventListener('abort', () => reject(new Error('aborted')));
          });
        },
      }),
    });
    const runDir = join(fixture.dir, 'run');
    const first = await startRun(fixture.experiment, { runDir, cancellation });
    expect(first.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok', 'cancelled', 'cancelled']);
    const store = new RunStore(runDir);
    expect(await store.readStepScores(first.trials[0]!.spec.id, fixture.task.steps[1]!)).toBeUndefined();

    attempt = 2;
    const second = await resumeExperiment(fixture.experiment, runDir);
    expect(second.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
    // Step 2 failed before its turn the first time: its one turn is the resumed one.
    expect(await turnStartsPerStep(runDir)).toEqual({ 0: 1, 1: 1, 2: 1 });
  });

  it('resumes the saved session when the harness can, with the state after the last complete turn', async () => {
    let slow = true;
    const options: FixtureOptions = {
      script: stepScript('continue'),
      harness: {
        capabilities: { resume: true },
        turns: ({ prompt }) => ({
          writeSolution: true,
          sleepMs: slow && prompt.includes('part 3') ? 20_000 : 0,
        }),
      },
    };
    const fixture = await makeFixture(options);
    const runDir = join(fixture.dir, 'run');
    await startRun(fixture.experiment, { runDir, ...stopAt(2, (c) => c.abort()) });
    slow = false;
    const before = fixture.harnesses.length;
    const result = await resumeExperiment(fixture.experiment, runDir);
    expect(result.trials[0]!.record.status).toBe('ok');
    const harness = fixture.harnesses.slice(before).find((h) => h.sessions.length > 0)!;
    expect(harness.sessions[0]!.options.resume).toEqual({ history: ['Write part 1.', 'Write part 2.'] });
  });

  it('reports the experiment file the run was started from, not the saved copy it resumed from', async () => {
    const fixture = await makeFixture({ steps: 1 });
    const runDir = join(fixture.dir, 'run');
    await startRun(fixture.experiment, { runDir });
    await resumeExperiment({ ...fixture.experiment, file: join(runDir, 'experiment.yaml') }, runDir);
    expect(fixture.reporter.reports.map((r) => r.experiment)).toEqual([
      { name: 'fixture', file: fixture.experiment.file },
      { name: 'fixture', file: fixture.experiment.file },
    ]);
  });

  it('keeps complete trials as they are', async () => {
    const fixture = await makeFixture({ steps: 1 });
    const runDir = join(fixture.dir, 'run');
    const first = await startRun(fixture.experiment, { runDir });
    const second = await resumeExperiment(fixture.experiment, runDir);
    expect(second.trials[0]!.record).toEqual(first.trials[0]!.record);
    expect(await turnStartsPerStep(runDir)).toEqual({ 0: 1 });
  });

  it("asks the environment to remove the interrupted attempt's leftovers of this run before any turn", async () => {
    const fixture = await makeFixture({ steps: 2, environment: { reclaimed: ['container x', 'network y'] } });
    const runDir = join(fixture.dir, 'run');
    const first = await startRun(fixture.experiment, { runDir, ...stopAt(1, (c) => c.abort()) });
    expect(first.status).toBe('cancelled');
    expect(fixture.environments.flatMap((e) => e.reclaims)).toEqual([]);

    const before = fixture.environments.length;
    const reclaimsAtTurnStart: number[] = [];
    const second = await resumeExperiment(fixture.experiment, runDir, {
      onEvent: (event) => {
        if (event.type === 'turn.start')
          reclaimsAtTurnStart.push(fixture.environments.flatMap((e) => e.reclaims).length);
      },
    });
    expect(second.status).toBe('ok');
    const reclaims = fixture.environments.slice(before).flatMap((e) => e.reclaims);
    expect(reclaims).toEqual([{ runId: runIdOf(runDir) }]);
    expect(reclaimsAtTurnStart).toEqual([1]);
    const logs = (await new RunStore(runDir).readEvents()).filter((e) => e.type === 'log');
    expect(logs.map((e) => (e as { message: string }).message)).toContainEqual(
      expect.stringContaining('container x, network y'),
    );
  });

  it('refuses to resume when a task changed since the run started', async () => {
    const fixture = await makeFixture({ steps: 1 });
    const runDir = join(fixture.dir, 'run');
    await startRun(fixture.experiment, { runDir });
    const changed = {
      ...fixture.experiment,
      trials: fixture.experiment.trials.map((t) => ({ ...t, task: { ...t.task, hash: 'other' } })),
    };
    await expect(resumeExperiment(changed, runDir)).rejects.toThrow(
      /task count changed since the run started/,
    );
  });
});

describe('starting a run', () => {
  const missing = (path: string) =>
    access(path).then(
      () => false,
      () => true,
    );

  it('validates every plan before making the run directory', async () => {
    const fixture = await makeFixture({
      script: {
        plan: (task) => [
          {
            prompt: 'x',
            session: 'fresh',
            workspace: { action: 'carry' },
            steps: [0],
            scores: [task.steps.length + 3],
            feedbackCycles: 0,
          },
        ],
      },
    });
    const runDir = join(fixture.dir, 'run');
    const error = await startRun(fixture.experiment, { runDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]).toMatchObject({
      key: 'script',
      message: expect.stringContaining('scores step index 6'),
    });
    expect(await missing(runDir)).toBe(true);
  });

  it('refuses a non-empty --run-dir that holds something else, and resumes one holding this experiment', async () => {
    const fixture = await makeFixture({ steps: 1 });
    const other = join(fixture.dir, 'other');
    await mkdir(other);
    await writeFile(join(other, 'notes.txt'), 'mine');
    await expect(startRun(fixture.experiment, { runDir: other })).rejects.toThrow(/not empty/);

    const runDir = join(fixture.dir, 'run');
    await startRun(fixture.experiment, { runDir });
    const again = await startRun(fixture.experiment, { runDir });
    expect(again.resumed).toBe(true);
    const different = { ...fixture.experiment, resolved: 'name: other\n' };
    await expect(startRun(different, { runDir })).rejects.toThrow(/different experiment/);
  });

  it('names a default run directory after the experiment and the time', async () => {
    const fixture = await makeFixture({ steps: 1 });
    const result = await startRun(fixture.experiment, { cwd: fixture.dir });
    expect(result.runDir).toMatch(/\/runs\/fixture-\d{8}-\d{6}$/);
    expect(result.runId).toMatch(new RegExp(`^${result.runDir.split('/').at(-1)}-[0-9a-f]{8}$`));
  });

  it('gives runs in directories of the same name different ids', async () => {
    const fixture = await makeFixture({ steps: 1 });
    const first = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'a', 'baseline') });
    const second = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'b', 'baseline') });
    expect(first.runId).not.toBe(second.runId);
    expect(first.runId.startsWith('baseline-')).toBe(true);
    // A resumed run keeps its id: what the first attempt left is found under it.
    const resumed = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'a', 'baseline') });
    expect(resumed.runId).toBe(first.runId);
  });
});

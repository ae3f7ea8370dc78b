import { join } from 'node:path';
import { ClassifiedError, RunCancellation, RunStore, startRun } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { makeFixture, stepScript } from './fixture.js';

const statuses = (result: Awaited<ReturnType<typeof startRun>>) =>
  result.trials[0]!.record.steps.map((s) => s.status);

describe('limits the kernel enforces', () => {
  it('ends a hanging harness at turnMs with status timeout, abandons it and still ends the run', async () => {
    const fixture = await makeFixture({
      harness: { turns: [{ writeSolution: true }, { hang: true }] },
      limits: { turnMs: 200 },
    });
    const started = Date.now();
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run'), abandonMs: 100 });
    // The harness never ends its turn: ending at all, well within a test's time, shows it was abandoned.
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(result.status).toBe('ok');
    expect(statuses(result)).toEqual(['ok', 'timeout', 'skipped']);
    expect(result.trials[0]!.record.status).toBe('timeout');
    // The timed-out step is still scored over what the agent left, and is complete.
    const store = new RunStore(join(fixture.dir, 'run'));
    const scores = await store.readStepScores(result.trials[0]!.spec.id, fixture.task.steps[1]!);
    expect(scores).toMatchObject({ status: 'timeout', scores: { 'match.match': 0 } });
    const trajectory = await store.readTrajectory(result.trials[0]!.spec.id, fixture.task.steps[1]!);
    expect(trajectory.at(-1)).toMatchObject({ type: 'turn.end', result: { status: 'timeout' } });
  });

  it('aborts a turn that runs past stepMs', async () => {
    const fixture = await makeFixture({
      steps: 1,
      harness: { turns: [{ writeSolution: true, sleepMs: 5000 }] },
      limits: { turnMs: 60_000, stepMs: 150 },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)).toEqual(['timeout']);
  });

  it('a limit past what a Node timer can wait is clamped, not fired at once', async () => {
    // Unclamped, setTimeout fires a 3e9 ms timer immediately and every turn would time out.
    const fixture = await makeFixture({
      steps: 2,
      harness: {
        turns: [
          { writeSolution: true, sleepMs: 200 },
          { writeSolution: true, sleepMs: 200 },
        ],
      },
      limits: { turnMs: 3_000_000_000, stepMs: 3_000_000_000 },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)).toEqual(['ok', 'ok']);
  });

  it('stops a trial that spends more than trialUsd with status budget', async () => {
    const fixture = await makeFixture({
      harness: {
        turns: ({ turn }) => ({
          writeSolution: true,
          usage: { costUsd: 0.6, inputTokens: 10 },
          sleepMs: turn === 0 ? 0 : 600_000,
        }),
      },
      limits: { trialUsd: 1 },
    });
    const started = Date.now();
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    // Turn 1 spends 0.6 and ends; turn 2 crosses 1.0 mid-turn and is aborted long before its 10 min.
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(statuses(result)).toEqual(['ok', 'budget', 'skipped']);
    expect(result.trials[0]!.record.usage.costUsd).toBeCloseTo(1.2);
    expect(result.trials[0]!.record.status).toBe('budget');
  });

  it('counts feedback cycles against turnsPerStep and tells the agent what failed', async () => {
    const fixture = await makeFixture({
      steps: 2,
      script: stepScript('fresh', 5),
      harness: { turns: () => ({ edits: { 'wrong.txt': 'no' } }) },
      limits: { turnsPerStep: 3 },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    const steps = result.trials[0]!.record.steps;
    expect(steps.map((s) => [s.status, s.turns, s.scores['match.match']])).toEqual([
      ['ok', 3, 0],
      ['ok', 3, 0],
    ]);
    const harness = fixture.harnesses.at(-1)!;
    expect(harness.prompts).toHaveLength(6);
    expect(harness.prompts[1]).toContain('the files differ from what was asked');
    // Feedback cycles continue the session; each step starts a fresh one.
    expect(harness.sessions).toHaveLength(2);
  });

  it('pools turnsPerStep over the steps of a turn that covers several', async () => {
    const fixture = await makeFixture({
      steps: 2,
      script: {
        plan: (task) => [
          {
            prompt: 'all',
            session: 'fresh',
            workspace: { action: 'carry' },
            steps: task.steps.map((s) => s.index),
            scores: task.steps.map((s) => s.index),
            feedbackCycles: 10,
          },
        ],
      },
      harness: { turns: () => ({ edits: { 'wrong.txt': 'no' } }) },
      limits: { turnsPerStep: 2 },
    });
    await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(fixture.harnesses.at(-1)!.prompts).toHaveLength(4);
  });

  it('stops feedback cycles as soon as the scores pass', async () => {
    const fixture = await makeFixture({
      steps: 1,
      script: stepScript('fresh', 5),
      harness: { turns: [{ edits: { 'wrong.txt': 'no' } }, { writeSolution: true }] },
      limits: { turnsPerStep: 6 },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(result.trials[0]!.record.steps.map((s) => [s.turns, s.scores['match.match']])).toEqual([[2, 1]]);
  });
});

describe('plugin calls outside a turn are bounded too', () => {
  it('ends a harness whose prepare never returns with timeout after stepMs', async () => {
    const fixture = await makeFixture({ harness: { prepare: 'hang' }, limits: { stepMs: 150 } });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)).toEqual(['timeout', 'skipped', 'skipped']);
    expect(result.trials[0]!.record.error).toBe('harness.prepare did not finish within 150 ms');
  });

  it('records a scorer that never returns as error:scorer and goes on', async () => {
    const fixture = await makeFixture({
      steps: 2,
      scorer: { scope: 'step', version: '1', score: () => new Promise(() => {}) },
      // Room for the step's own snapshot on a busy machine; the scorer alone never returns.
      limits: { stepMs: 2000, onError: 'continue' },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)).toEqual(['error:scorer', 'error:scorer']);
    const scores = await new RunStore(join(fixture.dir, 'run')).readStepScores(
      result.trials[0]!.spec.id,
      fixture.task.steps[0]!,
    );
    expect(scores?.details).toEqual({
      match: { error: 'scorer match did not finish within 2000 ms', status: 'error:scorer' },
    });
  });

  it('cancels a stuck environment at once when the run is aborted', async () => {
    const fixture = await makeFixture({ environment: { hangOpen: true } });
    const cancellation = new RunCancellation();
    const started = Date.now();
    const run = startRun(fixture.experiment, {
      runDir: join(fixture.dir, 'run'),
      cancellation,
      onEvent: (event) => {
        if (event.type === 'trial.start') setTimeout(() => cancellation.abort(), 50);
      },
    });
    const result = await run;
    // The environment never opens by itself: ending at all, well within a test's time, shows the abort.
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(result.status).toBe('cancelled');
    expect(statuses(result)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });
});

describe('fault classification', () => {
  it('records a harness that throws a ClassifiedError with its class, and one that throws anything else as crash', async () => {
    const fixture = await makeFixture({
      harness: {
        turns: [
          { writeSolution: true },
          { throws: new ClassifiedError('model', 'provider down') },
          { throws: new Error('boom') },
        ],
      },
      limits: { onError: 'continue' },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)).toEqual(['ok', 'error:model', 'error:crash']);
    expect(result.trials[0]!.record.status).toBe('error:model');
  });

  it('skips the remaining steps after a fault when onError is stop', async () => {
    const fixture = await makeFixture({ harness: { turns: [{ throws: new Error('boom') }] } });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)).toEqual(['error:crash', 'skipped', 'skipped']);
  });

  it('classifies an environment that cannot open a sandbox as a sandbox fault', async () => {
    const fixture = await makeFixture({ environment: { failOpen: new Error('docker is not running') } });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)).toEqual(['error:sandbox', 'skipped', 'skipped']);
    expect(result.trials[0]!.record.error).toContain('docker is not running');
    expect(result.status).toBe('ok');
  });

  it('classifies a harness that cannot prepare or open a session as a harness fault', async () => {
    for (const harness of [
      { prepare: new Error('agent missing') },
      { openSessionError: new Error('no login') },
    ]) {
      const fixture = await makeFixture({ harness });
      const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
      expect(statuses(result)[0]).toBe('error:harness');
    }
  });

  it('turns a throwing scorer into error:scorer for its step and keeps the other scorers', async () => {
    let calls = 0;
    const fixture = await makeFixture({
      scorer: {
        scope: 'step',
        version: '1',
        async score() {
          calls++;
          if (calls === 2) throw new Error('scorer bug');
          return [{ metric: 'match', value: 1 }];
        },
      },
      limits: { onError: 'continue' },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)).toEqual(['ok', 'error:scorer', 'ok']);
    const scores = await new RunStore(join(fixture.dir, 'run')).readStepScores(
      result.trials[0]!.spec.id,
      fixture.task.steps[1]!,
    );
    expect(scores?.details).toEqual({ match: { error: 'scorer bug', status: 'error:scorer' } });
  });

  it('records a failed snapshot as a sandbox fault of the step', async () => {
    const fixture = await makeFixture({ environment: { failSnapshot: new Error('disk full') } });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(statuses(result)[0]).toBe('error:sandbox');
  });
});

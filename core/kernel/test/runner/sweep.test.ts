import { join } from 'node:path';
import { RunStore, type StampedRunEvent, startRun } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, oneTurnScript } from './fixture.js';

const agentSandboxes = (fixture: Fixture) =>
  fixture.environments.flatMap((e) => e.opened).filter((s) => s.spec.purpose === 'agent');

const sweeps = (fixture: Fixture) => agentSandboxes(fixture).reduce((sum, s) => sum + s.sweeps, 0);

/** The agent writes only the part its turn asks for: earlier parts are there only if carried. */
const partWriter = {
  turns: ({ prompt }: { prompt: string }) => {
    const n = /part (\d+)/.exec(prompt)?.[1];
    return { edits: { [`part${n}.txt`]: `part ${n}\n`, 'README.md': 'seed\n' } };
  },
};

describe('the sandbox sweep at the end of a step', () => {
  it('runs once per step, before the step is snapshotted and recorded', async () => {
    let fixture: Fixture | undefined;
    const atTurnStart: number[] = [];
    const atStepEnd: number[] = [];
    fixture = await makeFixture({ harness: { turns: () => ({ writeSolution: true }) } });
    const onEvent = (event: StampedRunEvent) => {
      if (event.type === 'turn.start') atTurnStart.push(sweeps(fixture!));
      if (event.type === 'step.end') atStepEnd.push(sweeps(fixture!));
    };
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run'), onEvent });

    expect(result.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
    expect(agentSandboxes(fixture)).toHaveLength(1);
    expect(sweeps(fixture)).toBe(3);
    expect(atTurnStart).toEqual([0, 1, 2]);
    expect(atStepEnd).toEqual([1, 2, 3]);
  });

  it('runs once when one turn closes every step', async () => {
    const fixture = await makeFixture({
      script: oneTurnScript,
      harness: { turns: () => ({ writeSolution: true }) },
    });
    await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(sweeps(fixture)).toBe(1);
  });

  it('replaces a sandbox it could not sweep, and the workspace carries into the new one', async () => {
    const fixture = await makeFixture({
      harness: partWriter,
      environment: { failSweep: new Error('the process table is unreadable') },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });

    const record = result.trials[0]!.record;
    expect(record.steps.map((s) => [s.status, s.scores['match.match']])).toEqual([
      ['ok', 1],
      ['ok', 1],
      ['ok', 1],
    ]);
    const sandboxes = agentSandboxes(fixture);
    expect(sandboxes).toHaveLength(3);
    expect(sandboxes.every((s) => s.closed)).toBe(true);
    const events = await new RunStore(join(fixture.dir, 'run')).readEvents();
    const errors = events.filter((e) => e.type === 'log' && e.level === 'error');
    expect(errors.map((e) => (e as { message: string }).message)).toEqual([
      expect.stringContaining('the process table is unreadable'),
      expect.stringContaining('the process table is unreadable'),
      expect.stringContaining('the process table is unreadable'),
    ]);
  });
});

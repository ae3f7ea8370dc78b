import { access } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ClassifiedError,
  type ClosableGateway,
  emptyUsage,
  type ModelEndpoint,
  RunCancellation,
  RunStore,
  type StampedRunEvent,
  startRun,
  type Usage,
} from '@longhaul/core';
import { FakeHarness, fakePlugin } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { type Fixture, makeFixture } from './fixture.js';

/** The fixture's experiment with `models:` and the harness given `options`. */
function withModels(fixture: Fixture, options: Record<string, unknown> = {}, harness = 'fake') {
  const trials = fixture.experiment.trials.map((trial) => ({
    ...trial,
    condition: { ...trial.condition, harness: { id: harness, label: harness, options } },
  }));
  return { ...fixture.experiment, trials, config: { ...fixture.experiment.config, models: {} } };
}

/** A gateway that meters a fixed cost per `takeUsage` call and records what it was asked. */
class RecordingGateway implements ClosableGateway {
  readonly calls: string[] = [];
  closed = false;
  takeErrors?: (trialId: string) => ClassifiedError[];

  constructor(private readonly costPerPoll = 0) {}

  async endpoint(trialId: string, hostAddress: string, model?: string): Promise<ModelEndpoint> {
    this.calls.push(`endpoint ${trialId} ${hostAddress}${model ? ` ${model}` : ''}`);
    return {
      baseUrl: 'http://127.0.0.1:9',
      hostBaseUrl: 'http://127.0.0.1:9',
      token: 'trial-token',
      model: model ?? 'oracle',
    };
  }
  focus(trialId: string): void {
    this.calls.push(`focus ${trialId}`);
  }
  takeUsage(): Usage {
    return { ...emptyUsage(), costUsd: this.costPerPoll, inputTokens: this.costPerPoll > 0 ? 100 : 0 };
  }
  release(trialId: string): void {
    this.calls.push(`release ${trialId}`);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('the run gateway', () => {
  it('is opened for an experiment with models, handed to sessions and closed when the run ends', async () => {
    const fixture = await makeFixture({ steps: 2 });
    const gateway = new RecordingGateway(0.5);
    const runDir = join(fixture.dir, 'run');
    let dirExisted: boolean | undefined;
    const events: StampedRunEvent[] = [];
    const experiment = {
      ...fixture.experiment,
      config: {
        ...fixture.experiment.config,
        models: { oracle: { backend: 'oracle' } },
        prices: { oracle: { input: 1, output: 2 } },
      },
    };
    const result = await startRun(experiment, {
      runDir,
      onEvent: (event) => events.push(event),
      openGateway: async ({ run, models, prices, file, log }) => {
        dirExisted = await access(run.runDir).then(
          () => true,
          () => false,
        );
        expect(models).toEqual({ oracle: { backend: 'oracle' } });
        expect(prices).toEqual({ oracle: { input: 1, output: 2 } });
        log.warn('gateway: no price for model x');
        expect(file).toBe(fixture.experiment.file);
        return gateway;
      },
    });
    expect(dirExisted).toBe(false);
    expect(gateway.closed).toBe(true);
    const trialId = result.trials[0]!.spec.id;
    expect(gateway.calls.filter((c) => !c.startsWith('focus'))).toEqual([
      `endpoint ${trialId} 127.0.0.1`,
      `release ${trialId}`,
    ]);
    expect(gateway.calls.filter((c) => c.startsWith('focus'))).toHaveLength(2);
    const harness = fixture.harnesses.at(-1)!;
    expect(harness.sessions[0]!.options.model).toMatchObject({ token: 'trial-token', model: 'oracle' });
    // The gateway's metering is the turn's usage when it saw traffic.
    expect(result.trials[0]!.record.usage.costUsd).toBeCloseTo(1);
    // What the gateway logs reaches the run's event stream (the terminal, before the run dir exists).
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'log', level: 'warn', message: 'gateway: no price for model x' }),
    );
  });

  it("counts the gateway's metered cost everywhere and keeps the agent's own estimate apart, labelled", async () => {
    const agentEstimate = { costUsd: 1.63, inputTokens: 5000 };
    const fixture = await makeFixture({
      steps: 2,
      harness: { turns: () => ({ writeSolution: true, usage: agentEstimate }) },
    });
    const events: StampedRunEvent[] = [];
    const result = await startRun(withModels(fixture), {
      runDir: join(fixture.dir, 'run'),
      onEvent: (event) => events.push(event),
      openGateway: async () => new RecordingGateway(0.5),
    });
    const { record } = result.trials[0]!;
    // One metering per turn: 0.5 each, 1.0 for the trial; the agent said 1.63 per turn.
    expect(record.usage.costUsd).toBeCloseTo(1);
    expect(record.agentUsage).toMatchObject({ costUsd: 3.26, inputTokens: 10_000 });
    expect(record.steps.map((step) => [step.usage.costUsd, step.agentUsage?.costUsd])).toEqual([
      [0.5, 1.63],
      [0.5, 1.63],
    ]);
    // trial.json on disk says the same.
    const saved = await new RunStore(result.runDir).readTrial(record.id);
    expect(saved).toMatchObject({ usage: { costUsd: 1 }, agentUsage: { costUsd: 3.26 } });
    // The live view's source: the trial's metered usage so far, rising to what trial.json holds.
    const live = events.flatMap((event) => (event.type === 'trial.usage' ? [event.usage.costUsd] : []));
    expect(live.at(-1)).toBeCloseTo(1);
    expect(live.every((cost, i) => cost <= 1 + 1e-9 && (i === 0 || cost >= live[i - 1]!))).toBe(true);
    const end = events.find((event) => event.type === 'trial.end');
    expect(end).toMatchObject({ usage: { costUsd: 1 } });
  });

  it('enforces trialUsd from what the gateway meters', async () => {
    const fixture = await makeFixture({ limits: { trialUsd: 0.8 } });
    const experiment = { ...fixture.experiment, config: { ...fixture.experiment.config, models: {} } };
    const result = await startRun(experiment, {
      runDir: join(fixture.dir, 'run'),
      openGateway: async () => new RecordingGateway(0.5),
    });
    // Turn 2 ends before its metering crosses 0.8 is seen; turn 3 is not started.
    expect(result.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok', 'ok', 'budget']);
    expect(result.trials[0]!.record.steps[2]!.turns).toBe(0);
  });

  it('is closed again when the experiment does not validate, and no run directory is made', async () => {
    const fixture = await makeFixture({
      script: { plan: () => [] },
    });
    const gateway = new RecordingGateway();
    const runDir = join(fixture.dir, 'run');
    const experiment = { ...fixture.experiment, config: { ...fixture.experiment.config, models: {} } };
    await expect(startRun(experiment, { runDir, openGateway: async () => gateway })).rejects.toThrow(
      /no turns/,
    );
    expect(gateway.closed).toBe(true);
    await expect(access(runDir)).rejects.toThrow();
  });

  it("classifies a turn that failed while the gateway answered with faults by the gateway's fault", async () => {
    const fixture = await makeFixture({
      harness: {
        turns: [{ writeSolution: true }, { throws: new Error('agent exited 1') }, { status: 'failed' }],
      },
      limits: { onError: 'continue' },
    });
    const gateway = new RecordingGateway();
    const faults = [
      [],
      [new ClassifiedError('rate_limit', '429 after 4 retries')],
      [
        new ClassifiedError('auth', 'the provider refused the key'),
        new ClassifiedError('context_overflow', 'prompt too long'),
      ],
    ];
    // Asked once as each turn starts (nothing yet) and once as it ends (the turn's faults).
    let call = 0;
    gateway.takeErrors = () => (call++ % 2 === 1 ? (faults[(call - 2) / 2] ?? []) : []);
    const experiment = { ...fixture.experiment, config: { ...fixture.experiment.config, models: {} } };
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(experiment, { runDir, openGateway: async () => gateway });
    expect(result.trials[0]!.record.steps.map((s) => s.status)).toEqual([
      'ok',
      'error:rate_limit',
      'error:context_overflow',
    ]);
    const logs = (await new RunStore(runDir).readEvents())
      .filter((e) => e.type === 'log')
      .map((e) => e.message);
    expect(logs).toContain('model gateway: auth: the provider refused the key');
  });

  it("asks for an endpoint of the harness's model: its declared gatewayModel, else its model option", async () => {
    const fixture = await makeFixture({ steps: 1 });
    const gateway = new RecordingGateway();
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(withModels(fixture, { model: 'sonnet' }), {
      runDir,
      openGateway: async () => gateway,
    });
    const trialId = result.trials[0]!.spec.id;
    expect(gateway.calls).toContain(`endpoint ${trialId} 127.0.0.1 sonnet`);
    expect(fixture.harnesses.at(-1)!.sessions[0]!.options.model).toMatchObject({ model: 'sonnet' });

    // A harness that declares no gateway model (it calls a provider itself) gets no endpoint.
    const direct = await makeFixture({
      steps: 1,
      extraPlugins: [
        fakePlugin('harness', 'direct', () => Object.assign(new FakeHarness(), { gatewayModel: null })),
      ],
    });
    const untouched = new RecordingGateway();
    const run = await startRun(withModels(direct, { model: 'anthropic:claude-x' }, 'direct'), {
      runDir: join(direct.dir, 'run'),
      openGateway: async () => untouched,
    });
    expect(run.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok']);
    expect(untouched.calls.filter((c) => !c.startsWith('focus'))).toEqual([
      `release ${run.trials[0]!.spec.id}`,
    ]);
  });

  it('records the faults the gateway answered the agent with in the step trajectory, before turn.end', async () => {
    const fixture = await makeFixture({ steps: 1 });
    const gateway = new RecordingGateway();
    const refused = new ClassifiedError(
      'forbidden',
      "model 'oracle' is not available to this token, which allows the model 'sonnet' only (3 times)",
    );
    // Nothing as the turn starts; the refusal as it ends.
    let call = 0;
    gateway.takeErrors = () => (call++ === 1 ? [refused] : []);
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(withModels(fixture, { model: 'sonnet' }), {
      runDir,
      openGateway: async () => gateway,
    });
    // The agent went on and finished: the refusal is recorded, and the step is the agent's outcome.
    expect(result.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok']);
    const store = new RunStore(runDir);
    const trajectory = await store.readTrajectory(result.trials[0]!.spec.id, fixture.task.steps[0]!);
    expect(trajectory.slice(-2)).toEqual([
      {
        type: 'error',
        errorClass: 'forbidden',
        message: `model gateway: ${refused.message}`,
        ts: expect.any(Number),
      },
      expect.objectContaining({ type: 'turn.end', result: expect.objectContaining({ status: 'ok' }) }),
    ]);
    const events = await store.readEvents();
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'trajectory',
        event: expect.objectContaining({ type: 'error', errorClass: 'forbidden' }),
      }),
    );
  });

  it("logs faults of model calls made outside the agent's turn, and keeps them out of its trajectory", async () => {
    const fixture = await makeFixture({ steps: 1 });
    const gateway = new RecordingGateway();
    let calls = 0;
    // A judge's or memory plugin's call failed before the turn started; the turn itself had none.
    gateway.takeErrors = () => (calls++ === 0 ? [new ClassifiedError('rate_limit', 'judge: 429')] : []);
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(withModels(fixture), { runDir, openGateway: async () => gateway });
    const store = new RunStore(runDir);
    const trajectory = await store.readTrajectory(result.trials[0]!.spec.id, fixture.task.steps[0]!);
    expect(trajectory.filter((event) => event.type === 'error')).toEqual([]);
    const logs = (await store.readEvents()).filter((e) => e.type === 'log').map((e) => e.message);
    expect(logs).toContain("model gateway, outside the agent's turn: rate_limit: judge: 429");
  });

  it("releases the trial's tokens when the trial ends in a fault or is cancelled", async () => {
    const faulty = await makeFixture({
      steps: 2,
      harness: { openSessionError: new ClassifiedError('harness', 'cannot open') },
    });
    const gateway = new RecordingGateway();
    const failed = await startRun(withModels(faulty), {
      runDir: join(faulty.dir, 'run'),
      openGateway: async () => gateway,
    });
    const trialId = failed.trials[0]!.spec.id;
    expect(failed.trials[0]!.record.steps[0]!.status).toBe('error:harness');
    expect(gateway.calls).toEqual([`endpoint ${trialId} 127.0.0.1`, `release ${trialId}`]);

    const stuck = await makeFixture({ steps: 2, harness: { turns: [{ sleepMs: 60_000 }] } });
    const cancellation = new RunCancellation();
    const cancelledGateway = new RecordingGateway();
    const cancelled = await startRun(withModels(stuck), {
      runDir: join(stuck.dir, 'run'),
      cancellation,
      openGateway: async () => cancelledGateway,
      onEvent: (event) => {
        if (event.type === 'turn.start') setTimeout(() => cancellation.abort(), 50);
      },
    });
    expect(cancelled.status).toBe('cancelled');
    expect(cancelledGateway.calls.at(-1)).toBe(`release ${cancelled.trials[0]!.spec.id}`);
  });

  it('is not opened for an experiment without models', async () => {
    const fixture = await makeFixture({ steps: 1 });
    let opened = false;
    await startRun(fixture.experiment, {
      runDir: join(fixture.dir, 'run'),
      openGateway: async () => {
        opened = true;
        return new RecordingGateway();
      },
    });
    expect(opened).toBe(false);
  });
});

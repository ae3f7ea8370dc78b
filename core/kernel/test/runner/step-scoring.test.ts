import { type Environment, type StepScorer, type StepScoringInput, scoreStep } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

/** A scorer that scores nothing until `release`, and a context whose signal `controller` aborts. */
function pending() {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const scorer: StepScorer = {
    score: () => {
      started();
      return new Promise(() => {});
    },
  } as unknown as StepScorer;
  return { scorer, running };
}

function input(signal: AbortSignal): StepScoringInput {
  return {
    task: { id: 't', root: '/nowhere', environment: {} },
    step: { id: 's', index: 0 },
    trial: { id: 'trial', runId: 'run' },
    snapshot: 'ref',
    snapshots: {},
    environment: {} as Environment,
    outDir: '/nowhere',
    status: 'ok',
    signal,
    timeoutMs: 600_000,
  } as unknown as StepScoringInput;
}

describe('step scoring under an abort', () => {
  it.each([
    ['a reason of its own (a queue worker that lost its job)', 'lock lost'],
    ['no reason (a host calling abort())', undefined],
    ['the run cancelled', 'cancelled'],
  ])('counts a scorer taken away by %s as cancelled, not as its fault', async (_, reason) => {
    const { scorer, running } = pending();
    const controller = new AbortController();
    const outcome = scoreStep([{ label: 'tests', scorer }], input(controller.signal));
    await running;
    controller.abort(reason);
    expect((await outcome).status).toBe('cancelled');
  });

  it('keeps the kernel’s own reasons, timeout and budget', async () => {
    for (const reason of ['timeout', 'budget']) {
      const { scorer, running } = pending();
      const controller = new AbortController();
      const outcome = scoreStep([{ label: 'tests', scorer }], input(controller.signal));
      await running;
      controller.abort(reason);
      expect((await outcome).status).toBe(reason);
    }
  });

  it('counts a scorer that throws on its own as a scorer fault', async () => {
    const scorer = {
      score: async () => {
        throw new Error('broken');
      },
    } as unknown as StepScorer;
    const outcome = await scoreStep([{ label: 'tests', scorer }], input(new AbortController().signal));
    expect(outcome.status).toBe('error:scorer');
    expect(outcome.details.tests).toMatchObject({ error: 'broken' });
  });
});

import { join } from 'node:path';
import {
  type Memory,
  type MemoryContext,
  RunStore,
  type Script,
  startRun,
  type TurnPlan,
  type TurnResult,
  type WorkspaceAction,
} from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { makeFixture, matchScorer, oneTurnScript, stepScript } from './fixture.js';

/** One turn per step, each in a fresh session, with the given workspace action. */
const freshPerStep = (workspace: (index: number) => WorkspaceAction): Script => ({
  plan: (task): TurnPlan[] =>
    task.steps.map((step) => ({
      prompt: step.prompt,
      session: 'fresh',
      workspace: workspace(step.index),
      steps: [step.index],
      scores: [step.index],
      feedbackCycles: 0,
    })),
});

describe('what a plan asks of a turn', () => {
  it('resets the workspace to the reference of the step before, or to the seed', async () => {
    const fixture = await makeFixture({
      script: freshPerStep((index) => ({ action: 'reset', afterStep: index - 1 })),
      // The agent only adds its own file: whatever else is there came from the reset.
      harness: { turns: ({ turn }) => ({ edits: { [`agent${turn + 1}.txt`]: 'mine\n' } }) },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    const [step1, step2, step3] = result.trials[0]!.record.steps;
    const store = new RunStore(join(fixture.dir, 'run'));
    const files = async (ref: string | undefined) => (await store.snapshots.get(ref!)).map((f) => f.path);
    expect(await files(step1!.snapshot)).toEqual(['README.md', 'agent1.txt']);
    expect(await files(step2!.snapshot)).toEqual(['README.md', 'agent2.txt', 'part1.txt']);
    expect(await files(step3!.snapshot)).toEqual(['README.md', 'agent3.txt', 'part1.txt', 'part2.txt']);
  });

  it("gives scorers the workspace the step's turn began from: after a reset, not the step before", async () => {
    const starts: { step: string; start?: string; previous?: string }[] = [];
    const fixture = await makeFixture({
      script: freshPerStep((index) => ({ action: 'reset', afterStep: index - 1 })),
      harness: { turns: ({ turn }) => ({ edits: { [`agent${turn + 1}.txt`]: 'mine\n' } }) },
      scorer: matchScorer({
        onScore: (ctx) => void starts.push({ step: ctx.step.id, start: ctx.start, previous: ctx.previous }),
      }),
    });
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(fixture.experiment, { runDir });
    const store = new RunStore(runDir);
    const files = async (ref: string | undefined) => (await store.snapshots.get(ref!)).map((f) => f.path);
    // Step 2 began from the reference of step 1, not from the agent's step 1.
    expect(await files(starts[1]!.previous)).toEqual(['README.md', 'agent1.txt']);
    expect(await files(starts[1]!.start)).toEqual(['README.md', 'part1.txt']);
    // scores.json keeps it, for a regrade.
    const step2 = await store.readStepScores(result.trials[0]!.spec.id, fixture.task.steps[1]!);
    expect(step2?.start).toBe(starts[1]!.start);
  });

  it('gives the change of a turn that closes several steps to the first of them', async () => {
    const starts: (string | undefined)[] = [];
    const snapshots: string[] = [];
    const fixture = await makeFixture({
      script: oneTurnScript,
      scorer: matchScorer({
        onScore: (ctx) => {
          starts.push(ctx.start);
          snapshots.push(ctx.snapshot);
        },
      }),
    });
    await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(starts[0]).not.toBe(snapshots[0]);
    expect(starts.slice(1)).toEqual(snapshots.slice(1));
  });

  it('removes the paths a step hides before its turns, whatever the workspace action', async () => {
    const fixture = await makeFixture({
      script: freshPerStep((index) =>
        index === 2 ? { action: 'carry' } : { action: 'reset', afterStep: index - 1 },
      ),
      harness: { turns: ({ turn }) => ({ edits: { [`agent${turn + 1}.txt`]: 'mine\n' } }) },
    });
    // Step 1 hides a seed file, step 2 one the reset brings back, step 3 (carry) a missing one.
    fixture.task.steps[0]!.hidden = ['README.md'];
    fixture.task.steps[1]!.hidden = ['part1.txt'];
    fixture.task.steps[2]!.hidden = ['agent2.txt', 'no/such/file.txt'];
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    const [step1, step2, step3] = result.trials[0]!.record.steps;
    expect([step1, step2, step3].map((s) => s!.status)).toEqual(['ok', 'ok', 'ok']);
    const store = new RunStore(join(fixture.dir, 'run'));
    const files = async (ref: string | undefined) => (await store.snapshots.get(ref!)).map((f) => f.path);
    expect(await files(step1!.snapshot)).toEqual(['agent1.txt']);
    expect(await files(step2!.snapshot)).toEqual(['README.md', 'agent2.txt']);
    expect(await files(step3!.snapshot)).toEqual(['README.md', 'agent3.txt']);
  });

  it('scores every step after one turn that covers them all', async () => {
    const fixture = await makeFixture({ script: oneTurnScript });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    const steps = result.trials[0]!.record.steps;
    // The workspace after the one turn is the last step's reference: only step 3 matches.
    expect(steps.map((s) => [s.status, s.turns, s.scores['match.match']])).toEqual([
      ['ok', 1, 0],
      ['ok', 0, 0],
      ['ok', 0, 1],
    ]);
    expect(new Set(steps.map((s) => s.snapshot)).size).toBe(1);
    expect(fixture.harnesses.at(-1)!.prompts).toEqual(['Write part 1.\nWrite part 2.\nWrite part 3.']);
  });

  it("gives a step a halted turn worked on, before any turn scored it, that turn's status", async () => {
    const fixture = await makeFixture({
      steps: 2,
      script: {
        plan: (task): TurnPlan[] =>
          task.steps.flatMap((step): TurnPlan[] => [
            {
              prompt: `${step.prompt} (start)`,
              session: 'continue',
              workspace: { action: 'carry' },
              steps: [step.index],
              scores: [],
              feedbackCycles: 0,
            },
            {
              prompt: `${step.prompt} (finish)`,
              session: 'continue',
              workspace: { action: 'carry' },
              steps: [step.index],
              scores: [step.index],
              feedbackCycles: 0,
            },
          ]),
      },
      harness: { turns: [{ hang: true }] },
      limits: { turnMs: 100 },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run'), abandonMs: 50 });
    expect(result.trials[0]!.record.steps.map((s) => [s.status, s.turns])).toEqual([
      ['timeout', 1],
      ['skipped', 0],
    ]);
  });

  it('continues one session across steps when the plan says so', async () => {
    const fixture = await makeFixture({ script: stepScript('continue') });
    await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(fixture.harnesses.at(-1)!.sessions).toHaveLength(1);
  });
});

describe('memory around every turn', () => {
  it('adds its prefix and suffix, writes its files first, can restart the session and sees each result', async () => {
    const seen: { ctx: MemoryContext; result: TurnResult }[] = [];
    const fresh: boolean[] = [];
    const memory: Memory = {
      async beforeTurn(ctx) {
        fresh.push(ctx.freshSession);
        return {
          prefix: 'Read NOTES.md first.',
          suffix: 'Update NOTES.md.',
          files: { 'NOTES.md': `turn ${ctx.turnIndex + 1}\n` },
          restartSession: ctx.turnIndex === 2,
        };
      },
      async afterTurn(ctx, result) {
        seen.push({ ctx, result });
        await ctx.sandbox.readFile('NOTES.md');
      },
    };
    const fixture = await makeFixture({
      memory,
      script: stepScript('continue'),
      harness: { turns: () => ({}) },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    const harness = fixture.harnesses.at(-1)!;
    expect(harness.prompts[1]).toBe('Read NOTES.md first.\n\nWrite part 2.\n\nUpdate NOTES.md.');
    expect(harness.sessions).toHaveLength(2);
    expect(fresh).toEqual([true, false, false]);
    // afterTurn knows the memory's restart made turn 3's session a new one.
    expect(seen.map((s) => [s.ctx.turnIndex, s.ctx.freshSession, s.result.status])).toEqual([
      [0, true, 'ok'],
      [1, false, 'ok'],
      [2, true, 'ok'],
    ]);
    const snapshot = await new RunStore(join(fixture.dir, 'run')).snapshots.get(
      result.trials[0]!.record.steps[2]!.snapshot!,
    );
    expect(new TextDecoder().decode(snapshot.find((f) => f.path === 'NOTES.md')!.data)).toBe('turn 3\n');
    // The prompt the agent got is what the step's prompt.md holds.
    const store = new RunStore(join(fixture.dir, 'run'));
    const { readFile } = await import('node:fs/promises');
    expect(
      await readFile(store.stepFile(result.trials[0]!.spec.id, fixture.task.steps[1]!, 'prompt.md'), 'utf8'),
    ).toBe(harness.prompts[1]);
  });

  it("keeps every turn's prompt of a step that takes several turns (planning first) in prompt.md", async () => {
    const fixture = await makeFixture({
      steps: 1,
      script: {
        plan: (): TurnPlan[] => [
          {
            prompt: 'Plan.',
            session: 'fresh',
            workspace: { action: 'carry' },
            steps: [0],
            scores: [],
            feedbackCycles: 0,
          },
          {
            prompt: 'Work.',
            session: 'continue',
            workspace: { action: 'carry' },
            steps: [0],
            scores: [0],
            feedbackCycles: 0,
          },
        ],
      },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(result.trials[0]!.record.steps[0]!.turns).toBe(2);
    const store = new RunStore(join(fixture.dir, 'run'));
    const { readFile } = await import('node:fs/promises');
    const prompt = await readFile(
      store.stepFile(result.trials[0]!.spec.id, fixture.task.steps[0]!, 'prompt.md'),
      'utf8',
    );
    expect(prompt).toBe('Plan.\n\n---\n\n<!-- turn 2 -->\n\nWork.');
  });

  it('records a memory that throws as error:memory', async () => {
    const fixture = await makeFixture({
      memory: {
        beforeTurn: async () => {
          throw new Error('notes unreadable');
        },
        afterTurn: async () => {},
      },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(result.trials[0]!.record.steps.map((s) => s.status)).toEqual([
      'error:memory',
      'skipped',
      'skipped',
    ]);
  });
});

import { type TrajectoryEvent, toAtif } from '@longhaul/core';
import { afterEach, describe, expect, it } from 'vitest';
import { oracleSandbox, readTree, twoStepTask } from '../../claude-code/test/support/oracle-task.js';
import { programReady } from '../../claude-code/test/support/program.js';
import { ofType, runTurn, turnOptions } from '../../claude-code/test/support/turns.js';
import { bundledBinary, Codex, codexOptions, pinnedVersion } from '../src/index.js';

const ready = programReady('Codex', '@openai/codex', bundledBinary);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe.skipIf(!ready)('codex driven by the oracle model (real CLI)', () => {
  it('reaches each step’s reference solution, the second step in the resumed thread', async () => {
    const { sandbox, gateway, dispose } = await oracleSandbox();
    cleanup.push(dispose);
    const harness = new Codex(codexOptions.parse({}), gateway);
    await harness.prepare(sandbox);
    const trajectory: TrajectoryEvent[] = [];

    let session = await harness.openSession(sandbox, { trialId: 'oracle-trial' });
    let threadId: string | undefined;
    for (const step of twoStepTask.steps) {
      const focus = { task: twoStepTask, steps: [step] };
      const { events, result } = await runTurn(session, step.prompt, turnOptions({ focus }));
      trajectory.push(...events);
      expect(result, JSON.stringify(events.slice(-3))).toMatchObject({ status: 'ok' });
      expect(await readTree(sandbox.workspace)).toEqual(await readTree(step.solution!));
      const calls = ofType(events, 'tool.call');
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.every((call) => call.name === 'command_execution')).toBe(true);
      expect(ofType(events, 'tool.result').length).toBe(calls.length);
      expect(result.usage.inputTokens).toBeGreaterThan(0);
      expect(result.usage.outputTokens).toBeGreaterThan(0);
      const [start] = ofType(events, 'session.start');
      expect(start).toMatchObject({ resumed: step.index > 0 });
      threadId ??= start?.sessionId;
      expect(start?.sessionId).toBe(threadId);
      session = await harness.openSession(sandbox, { trialId: 'oracle-trial', resume: session.state() });
    }

    const atif = toAtif(trajectory, { agent: 'codex', version: pinnedVersion, trajectoryId: 'oracle-trial' });
    expect(atif.session_id).toBe(threadId);
    expect(atif.steps.flatMap((step) => step.tool_calls ?? []).length).toBeGreaterThan(1);
    expect(atif.final_metrics?.total_completion_tokens).toBeGreaterThan(0);
  });
});

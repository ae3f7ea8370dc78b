import { type TrajectoryEvent, toAtif } from '@longhaul/core';
import { afterEach, describe, expect, it } from 'vitest';
import { bundledBinary, ClaudeCode, claudeCodeOptions, pinnedVersion } from '../src/index.js';
import { oracleSandbox, readTree, twoStepTask } from './support/oracle-task.js';
import { programReady } from './support/program.js';
import { ofType, runTurn, turnOptions } from './support/turns.js';

const ready = programReady('Claude Code', '@anthropic-ai/claude-code', bundledBinary);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe.skipIf(!ready)('claude-code driven by the oracle model (real CLI)', () => {
  it('reaches each step’s reference solution, the second step in the resumed session', async () => {
    const { sandbox, gateway, dispose } = await oracleSandbox();
    cleanup.push(dispose);
    const harness = new ClaudeCode(claudeCodeOptions.parse({}), gateway);
    await harness.prepare(sandbox);
    const trajectory: TrajectoryEvent[] = [];

    let session = await harness.openSession(sandbox, { trialId: 'oracle-trial' });
    for (const step of twoStepTask.steps) {
      const focus = { task: twoStepTask, steps: [step] };
      const { events, result } = await runTurn(session, step.prompt, turnOptions({ focus }));
      trajectory.push(...events);
      expect(result, JSON.stringify(events.slice(-3))).toMatchObject({ status: 'ok' });
      expect(await readTree(sandbox.workspace)).toEqual(await readTree(step.solution!));
      const names = ofType(events, 'tool.call').map((call) => call.name);
      expect(names).toContain('Bash');
      expect(names.some((name) => name === 'Write' || name === 'Edit')).toBe(true);
      expect(ofType(events, 'tool.result').length).toBe(names.length);
      expect(result.usage.inputTokens).toBeGreaterThan(0);
      expect(result.usage.outputTokens).toBeGreaterThan(0);
      expect(ofType(events, 'session.start')).toEqual([
        expect.objectContaining({ sessionId: session.id, resumed: step.index > 0 }),
      ]);
      // The next step continues this session from its saved state, as the conversation script does.
      session = await harness.openSession(sandbox, { trialId: 'oracle-trial', resume: session.state() });
    }

    const atif = toAtif(trajectory, {
      agent: 'claude-code',
      version: pinnedVersion,
      trajectoryId: 'oracle-trial',
    });
    expect(atif.steps.filter((step) => step.source === 'user')).toHaveLength(2);
    expect(atif.steps.flatMap((step) => step.tool_calls ?? []).length).toBeGreaterThan(2);
    expect(atif.final_metrics?.total_prompt_tokens).toBeGreaterThan(0);
    expect(atif.extra?.turns).toEqual([
      expect.objectContaining({ status: 'ok' }),
      expect.objectContaining({ status: 'ok' }),
    ]);
  });
});

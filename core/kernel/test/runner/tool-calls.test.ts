import { join } from 'node:path';
import { mostToolCallsFailed, RunStore, startRun, type TrajectoryEvent } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { makeFixture } from './fixture.js';

/** Six write_file calls with the wrong argument name, each refused by the harness's validation. */
const refused: TrajectoryEvent[] = Array.from({ length: 6 }, (_, i) => [
  { type: 'tool.call' as const, id: `w${i}`, name: 'write_file', input: { path: 'main.py', content: 'x' } },
  {
    type: 'tool.result' as const,
    id: `w${i}`,
    output: JSON.stringify({
      success: false,
      error: 'Invalid arguments for write_file: ✖ expected string, received undefined;   → at file_path',
    }),
    isError: true,
  },
]).flat();

describe("a step's tool calls", () => {
  it('are counted with the failed ones, and why each failed is kept in scores.json', async () => {
    const fixture = await makeFixture({
      steps: 2,
      harness: {
        turns: [{ events: refused }, { edits: { 'a.txt': 'a', 'b.txt': 'b' }, writeSolution: true }],
      },
      limits: { onError: 'continue' },
    });
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(fixture.experiment, { runDir });
    const [trial] = result.trials;
    // The step still ends `ok`: the agent finished its turn. Its record says what happened.
    expect(trial!.record.steps.map((step) => [step.status, step.tools])).toEqual([
      ['ok', { calls: 6, failed: 6 }],
      ['ok', { calls: 2, failed: 0 }],
    ]);
    expect(trial!.record.steps.map((step) => mostToolCallsFailed(step.tools))).toEqual([true, false]);
    const scores = await new RunStore(runDir).readStepScores(trial!.spec.id, fixture.task.steps[0]!);
    expect(scores?.tools?.failures).toHaveLength(6);
    expect(scores?.tools?.failures[0]).toEqual({
      tool: 'write_file',
      error: 'Invalid arguments for write_file: ✖ expected string, received undefined; → at file_path',
    });
  });

  it('flag a step only when most of them failed', () => {
    expect(mostToolCallsFailed({ calls: 4, failed: 2 })).toBe(false);
    expect(mostToolCallsFailed({ calls: 3, failed: 2 })).toBe(true);
    expect(mostToolCallsFailed({ calls: 0, failed: 0 })).toBe(false);
    expect(mostToolCallsFailed(undefined)).toBe(false);
  });
});

import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore, trialAtifFile, writeTrialAtif } from '@longhaul/core';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('writeTrialAtif', () => {
  it('writes every step’s trajectory, in step order, as the trial’s ATIF file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-atif-'));
    dirs.push(dir);
    const store = new RunStore(dir);
    const steps = [
      { index: 0, id: 'first' },
      { index: 1, id: 'second' },
      { index: 2, id: 'never-reached' },
    ];
    for (const step of steps.slice(0, 2)) await mkdir(store.stepDir('t1', step), { recursive: true });
    const usage = { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
    const second = store.trajectory('t1', steps[1]!);
    await second.append({ type: 'message', role: 'user', text: 'step two' });
    await second.append({ type: 'turn.end', result: { status: 'ok', finalText: '', usage, durationMs: 1 } });
    const first = store.trajectory('t1', steps[0]!);
    await first.append({ type: 'session.start', sessionId: 's1', resumed: false });
    await first.append({ type: 'message', role: 'user', text: 'step one' });
    await first.append({ type: 'turn.end', result: { status: 'ok', finalText: '', usage, durationMs: 1 } });

    await writeTrialAtif(store, 't1', [steps[2]!, steps[1]!, steps[0]!], {
      agent: 'codex',
      version: '0.169.0',
    });
    const written = JSON.parse(await readFile(trialAtifFile(store, 't1'), 'utf8'));
    expect(trialAtifFile(store, 't1')).toBe(join(dir, 'trials', 't1', 'trajectory.atif.json'));
    expect(written).toMatchObject({ session_id: 's1', trajectory_id: 't1', agent: { name: 'codex' } });
    expect(written.steps.map((step: { message: string }) => step.message)).toEqual(['step one', 'step two']);
    expect(written.final_metrics.total_prompt_tokens).toBe(10);
  });
});

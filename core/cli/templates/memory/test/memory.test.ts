import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyUsage, type Memory, type MemoryContext, type TurnResult } from '@longhaul/core';
import {
  describeMemory,
  FakeEnvironment,
  type FakeSandbox,
  instantiatePlugin,
  sampleTask,
} from '@longhaul/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const task = sampleTask(3);
const stateDirs: string[] = [];

afterAll(async () => {
  for (const dir of stateDirs) await rm(dir, { recursive: true, force: true });
});

function openSandbox(): Promise<FakeSandbox> {
  return new FakeEnvironment().open({
    runId: 'run',
    trialId: 'trial',
    purpose: 'agent',
    task: { id: task.id, root: task.root },
    needs: {},
  });
}

// The contract every memory keeps (testkit's conformance suite).
describeMemory('{{id}}', async () => {
  const sandbox = await openSandbox();
  return { memory: instantiatePlugin<Memory>(plugin), sandbox, dispose: () => sandbox.close() };
});

/** The context the kernel gives a memory for turn `turnIndex`, each turn working on one step. */
async function contexts() {
  const stateDir = await mkdtemp(join(tmpdir(), 'memory-state-'));
  stateDirs.push(stateDir);
  const sandbox = await openSandbox();
  return (turnIndex: number, freshSession: boolean): MemoryContext => ({
    task,
    plan: {
      prompt: task.steps[turnIndex]!.prompt,
      session: freshSession ? 'fresh' : 'continue',
      workspace: { action: 'carry' },
      steps: [turnIndex],
      scores: [turnIndex],
      feedbackCycles: 0,
    },
    turnIndex,
    sandbox,
    capabilities: { resume: false, memoryFiles: [], hooks: false },
    stateDir,
    freshSession,
    sessionEvents: [],
  });
}

const ended = (status: TurnResult['status'], finalText: string): TurnResult => ({
  status,
  finalText,
  usage: emptyUsage(),
  durationMs: 1,
});

describe('memory {{id}}', () => {
  it("puts the last session's final message before the first prompt of the next fresh session", async () => {
    const memory = instantiatePlugin<Memory>(plugin);
    const context = await contexts();
    expect(await memory.beforeTurn(context(0, true))).toEqual({});
    await memory.afterTurn(context(0, true), ended('ok', 'Parts 1 and 2 done; 3 left.'), []);
    expect(await memory.beforeTurn(context(1, false))).toEqual({});
    expect((await memory.beforeTurn(context(2, true))).prefix).toBe(
      'Where the previous session left off:\n\nParts 1 and 2 done; 3 left.\n\n---\n\n',
    );
  });

  it('keeps the earlier message when a turn ends in an error', async () => {
    const memory = instantiatePlugin<Memory>(plugin, { heading: 'Before:', maxChars: 4 });
    const context = await contexts();
    await memory.afterTurn(context(0, true), ended('ok', 'all done'), []);
    await memory.afterTurn(context(1, true), ended('error:crash', 'half'), []);
    expect((await memory.beforeTurn(context(2, true))).prefix).toBe('Before:\n\ndone\n\n---\n\n');
  });
});

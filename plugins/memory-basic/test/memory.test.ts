import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyUsage, type Memory, type MemoryContext, type TurnResult } from '@longhaul/core';
import {
  describeMemory,
  FakeEnvironment,
  type FakeSandbox,
  goneSandbox,
  instantiatePlugin,
  sampleTask,
} from '@longhaul/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import plugins, { none, notes } from '../src/index.js';

const task = sampleTask(2);
const stateDirs: string[] = [];

afterAll(async () => {
  for (const dir of stateDirs) await rm(dir, { recursive: true, force: true });
});

async function openSandbox(): Promise<FakeSandbox> {
  return new FakeEnvironment().open({
    runId: 'r',
    trialId: 't',
    purpose: 'agent',
    task: { id: task.id, root: task.root },
    needs: {},
  });
}

for (const plugin of plugins) {
  describeMemory(plugin.id, async () => {
    const sandbox = await openSandbox();
    return { memory: instantiatePlugin<Memory>(plugin), sandbox, dispose: () => sandbox.close() };
  });
}

const ok: TurnResult = { status: 'ok', finalText: 'done', usage: emptyUsage(), durationMs: 1 };

async function contextFor(sandbox: FakeSandbox) {
  const stateDir = await mkdtemp(join(tmpdir(), 'longhaul-notes-'));
  stateDirs.push(stateDir);
  return (turnIndex: number, freshSession = true): MemoryContext => ({
    task,
    plan: {
      prompt: 'p',
      session: 'fresh',
      workspace: { action: 'carry' },
      steps: [0],
      scores: [0],
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

describe('memory none', () => {
  it('changes nothing', async () => {
    const memory = instantiatePlugin<Memory>(none);
    const sandbox = await openSandbox();
    expect(await memory.beforeTurn((await contextFor(sandbox))(0))).toEqual({});
    expect(() => none.options.parse({ file: 'x' })).toThrow(/file/);
  });
});

describe('memory notes', () => {
  it('asks the agent to keep NOTES.md and declares it as its own file', async () => {
    const memory = instantiatePlugin<Memory>(notes);
    const patch = await memory.beforeTurn((await contextFor(await openSandbox()))(0));
    expect(patch.suffix).toContain('Keep a file named NOTES.md in the workspace');
    expect(patch.files).toBeUndefined();
    expect(memory.ownedFiles).toEqual(['NOTES.md']);
  });

  it('carries the notes across a workspace reset and a fresh session', async () => {
    const memory = instantiatePlugin<Memory>(notes);
    const sandbox = await openSandbox();
    const context = await contextFor(sandbox);
    await memory.beforeTurn(context(0));
    await sandbox.writeFile('NOTES.md', '# Notes\nparser lives in parse.py\n');
    await memory.afterTurn(context(0), ok, []);
    expect(await readFile(join(context(0).stateDir, 'NOTES.md'), 'utf8')).toBe(
      '# Notes\nparser lives in parse.py\n',
    );

    await sandbox.push([]);
    expect((await memory.beforeTurn(context(1))).files).toEqual({
      'NOTES.md': '# Notes\nparser lives in parse.py\n',
    });
  });

  it('leaves notes that are still in the workspace alone, and saves the newest version', async () => {
    const memory = instantiatePlugin<Memory>(notes);
    const sandbox = await openSandbox();
    const context = await contextFor(sandbox);
    await sandbox.writeFile('NOTES.md', 'v1');
    await memory.afterTurn(context(0), ok, []);
    await sandbox.writeFile('NOTES.md', 'v2');
    expect((await memory.beforeTurn(context(1))).files).toBeUndefined();
    await memory.afterTurn(context(1), ok, []);
    await sandbox.remove('NOTES.md');
    expect((await memory.beforeTurn(context(2))).files).toEqual({ 'NOTES.md': 'v2' });
  });

  it('keeps the last saved notes when a turn fails and its sandbox is gone', async () => {
    const memory = instantiatePlugin<Memory>(notes);
    const sandbox = await openSandbox();
    const context = await contextFor(sandbox);
    await sandbox.writeFile('NOTES.md', 'kept');
    await memory.afterTurn(context(0), ok, []);
    await memory.afterTurn({ ...context(1), sandbox: goneSandbox() }, { ...ok, status: 'error:crash' }, []);
    await sandbox.push([]);
    expect((await memory.beforeTurn(context(2))).files).toEqual({ 'NOTES.md': 'kept' });
  });

  it('takes the file name, the instruction and when to remind from its options', async () => {
    const memory = instantiatePlugin<Memory>(notes, {
      file: 'docs/handover.md',
      instruction: 'Update {{file}}.',
      remind: 'fresh-session',
    });
    const sandbox = await openSandbox();
    const context = await contextFor(sandbox);
    expect((await memory.beforeTurn(context(0, true))).suffix).toBe('Update docs/handover.md.');
    expect((await memory.beforeTurn(context(1, false))).suffix).toBeUndefined();
    await sandbox.writeFile('docs/handover.md', 'h');
    await memory.afterTurn(context(1), ok, []);
    await sandbox.push([]);
    expect((await memory.beforeTurn(context(2))).files).toEqual({ 'docs/handover.md': 'h' });
    expect(memory.ownedFiles).toEqual(['docs/handover.md']);
  });

  it('refuses a notes file outside the workspace', () => {
    expect(() => notes.options.parse({ file: '../NOTES.md' })).toThrow(/inside the workspace/);
    expect(() => notes.options.parse({ file: '/tmp/NOTES.md' })).toThrow(/inside the workspace/);
    expect(() => notes.options.parse({ remind: 'sometimes' })).toThrow();
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import {
  ClassifiedError,
  emptyUsage,
  type HarnessCapabilities,
  type Memory,
  type MemoryContext,
  type MemoryPatch,
  type Sandbox,
  type TurnPlan,
  type TurnResult,
} from '@longhaul/core';
import { expect } from 'vitest';
import { type Check, describeChecks } from './checks.js';
import { sampleTask } from './sample-task.js';

export interface MemoryFixture {
  memory: Memory;
  /** A sandbox over an empty or seeded workspace. */
  sandbox: Sandbox;
  capabilities?: HarnessCapabilities;
  dispose?(): Promise<void>;
}

export interface MemoryContextInput {
  fixture: () => Promise<MemoryFixture>;
}

const task = sampleTask(3);
const plan: TurnPlan[] = task.steps.map((step, index) => ({
  prompt: step.prompt,
  session: index === 1 ? 'continue' : 'fresh',
  workspace: { action: 'carry' },
  steps: [index],
  scores: [index],
  feedbackCycles: 0,
}));

const errorResult: TurnResult = {
  status: 'error:crash',
  finalText: '',
  usage: emptyUsage(),
  error: 'the agent process exited with signal SIGKILL',
  durationMs: 12,
};

/** A sandbox whose every method rejects as a closed one does. */
export function goneSandbox(): Sandbox {
  const gone = async () => {
    throw new ClassifiedError('sandbox', 'sandbox gone is closed');
  };
  return new Proxy({ id: 'gone', workspace: '/workspace', hostAddress: '127.0.0.1' } as Sandbox, {
    get: (target, key) => (key in target ? target[key as keyof Sandbox] : gone),
  });
}

function expectValidPatch(patch: MemoryPatch, where: string): void {
  expect(typeof patch === 'object' && patch !== null, `${where}: the patch must be an object`).toBe(true);
  for (const key of Object.keys(patch)) {
    expect(['prefix', 'suffix', 'files', 'restartSession'], `${where}: unknown patch key ${key}`).toContain(
      key,
    );
  }
  for (const key of ['prefix', 'suffix'] as const) {
    if (patch[key] !== undefined) expect(typeof patch[key], `${where}: ${key}`).toBe('string');
  }
  if (patch.restartSession !== undefined) expect(typeof patch.restartSession).toBe('boolean');
  for (const [path, content] of Object.entries(patch.files ?? {})) {
    expect(typeof content, `${where}: files[${path}] must be text`).toBe('string');
    expectWorkspacePath(path, where);
  }
}

function expectWorkspacePath(path: string, where: string): void {
  const escapes = isAbsolute(path) || path.split(/[\\/]/).includes('..') || path.trim() === '';
  expect(escapes, `${where}: "${path}" is not a path inside the workspace`).toBe(false);
}

async function withMemory(
  input: MemoryContextInput,
  use: (
    fixture: MemoryFixture,
    context: (turnIndex: number, sandbox?: Sandbox) => MemoryContext,
  ) => Promise<void>,
): Promise<void> {
  const fixture = await input.fixture();
  const stateDir = await mkdtemp(join(tmpdir(), 'longhaul-memory-state-'));
  const context = (turnIndex: number, sandbox = fixture.sandbox): MemoryContext => ({
    task,
    plan: plan[turnIndex]!,
    turnIndex,
    sandbox,
    capabilities: fixture.capabilities ?? { resume: false, memoryFiles: ['AGENTS.md'], hooks: false },
    stateDir,
    freshSession: plan[turnIndex]!.session === 'fresh',
    sessionEvents: [],
  });
  try {
    await use(fixture, context);
  } finally {
    await fixture.dispose?.();
    await rm(stateDir, { recursive: true, force: true });
  }
}

const okResult: TurnResult = { status: 'ok', finalText: 'done', usage: emptyUsage(), durationMs: 10 };

export const memoryChecks: Check<MemoryContextInput>[] = [
  {
    name: 'beforeTurn returns a valid patch on every turn, in fresh and continued sessions',
    run: (input) =>
      withMemory(input, async ({ memory }, context) => {
        for (const [index] of plan.entries()) {
          expectValidPatch(await memory.beforeTurn(context(index)), `turn ${index}`);
          await memory.afterTurn(context(index), okResult, []);
        }
      }),
  },
  {
    name: 'afterTurn tolerates a turn that ended in an error, and the next turn still gets a valid patch',
    run: (input) =>
      withMemory(input, async ({ memory }, context) => {
        await memory.beforeTurn(context(0));
        await memory.afterTurn(context(0), errorResult, [
          { type: 'error', errorClass: 'crash', message: 'killed' },
        ]);
        expectValidPatch(await memory.beforeTurn(context(1)), 'turn after an error');
      }),
  },
  {
    name: 'afterTurn tolerates a sandbox that is gone',
    run: (input) =>
      withMemory(input, async ({ memory }, context) => {
        await memory.beforeTurn(context(0));
        await memory.afterTurn(context(0, goneSandbox()), errorResult, []);
      }),
  },
  {
    name: 'files it owns, when it declares them, are paths inside the workspace',
    run: (input) =>
      withMemory(input, async ({ memory }) => {
        if (memory.ownedFiles === undefined) return;
        expect(Array.isArray(memory.ownedFiles)).toBe(true);
        for (const path of memory.ownedFiles) expectWorkspacePath(path, 'ownedFiles');
      }),
  },
];

/** The memory conformance suite; `fixture` is called once per check. */
export function describeMemory(name: string, fixture: () => Promise<MemoryFixture>): void {
  describeChecks(`memory conformance: ${name}`, memoryChecks, () => ({ fixture }));
}

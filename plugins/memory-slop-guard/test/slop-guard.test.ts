import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryContext, Sandbox } from '@longhaul/core';
import { describeMemory, FakeEnvironment, sampleTask } from '@longhaul/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { slopGuardOptions } from '../src/options.js';
import { SlopGuardMemory } from '../src/slop-guard.js';

const cleanup: string[] = [];
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true });
});

const small = 'def add(a, b):\n    return a + b\n';

function branchy(name: string, branches: number): string {
  const body = Array.from(
    { length: branches },
    (_, i) =>
      `    if x == ${i}:\n        total = total + ${i} * x\n        for y in range(x):\n            total += y\n`,
  ).join('');
  return `def ${name}(x):\n    total = 0\n${body}    return total\n`;
}

const duplicated = `def load_a(path):
    with open(path) as handle:
        rows = [line.strip().split(",") for line in handle]
    rows = [row for row in rows if row and row[0]]
    result = {}
    for row in rows:
        result[row[0]] = row[1:]
    return result
`;

async function setup() {
  const stateDir = await mkdtemp(join(tmpdir(), 'slop-guard-'));
  cleanup.push(stateDir);
  const task = sampleTask(2, { seed: undefined });
  const sandbox = await new FakeEnvironment().open({
    runId: 'r',
    trialId: 't',
    purpose: 'agent',
    task,
    needs: {},
  });
  const context = (turnIndex: number): MemoryContext => ({
    task,
    plan: {
      prompt: 'p',
      session: 'continue',
      workspace: { action: 'carry' },
      steps: [turnIndex],
      scores: [turnIndex],
      feedbackCycles: 0,
    },
    turnIndex,
    sandbox,
    capabilities: { resume: true, memoryFiles: true, hooks: false } as never,
    stateDir,
    freshSession: turnIndex === 0,
    sessionEvents: [],
  });
  return { sandbox, stateDir, context };
}

describe('slop-guard', () => {
  it("names the largest functions, the clone groups and a rising erosion in the next turn's prompt", async () => {
    const { sandbox, stateDir, context } = await setup();
    const memory = new SlopGuardMemory(slopGuardOptions.parse({ erosionRise: 0 }));
    expect(await memory.beforeTurn(context(0))).toEqual({});
    await sandbox.writeFile('app.py', small);
    await memory.afterTurn(context(0));
    await sandbox.writeFile('app.py', `${small}\n\n${branchy('tally', 12)}`);
    await sandbox.writeFile('a.py', duplicated);
    await sandbox.writeFile('b.py', duplicated.replace('load_a', 'load_b'));
    await memory.afterTurn(context(1));
    const patch = await memory.beforeTurn(context(2));
    expect(patch.prefix).toBeUndefined();
    expect(patch.suffix).toMatch(/^\n\n## Code health after the previous turn/);
    expect(patch.suffix).toMatch(/- tally in app\.py:5-\d+: \d+ lines, complexity 25, mass \d+/);
    expect(patch.suffix).toMatch(/- (a|b)\.py:1-8 ≈ (a|b)\.py:1-8/);
    expect(patch.suffix).toMatch(/Structural erosion rose from 0\.000 to 0\.\d+/);
    const history = (await readFile(join(stateDir, 'quality.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(history.map((entry) => entry.turn)).toEqual([0, 1]);
    expect(history[1].erosion).toBeGreaterThan(history[0].erosion);
  });

  it('says nothing when the workspace has no code', async () => {
    const { sandbox, context } = await setup();
    const memory = new SlopGuardMemory(slopGuardOptions.parse({ placement: 'prefix' }));
    await sandbox.writeFile('README.md', '# notes\n');
    await memory.afterTurn(context(0));
    expect(await memory.beforeTurn(context(1))).toEqual({});
  });
});

describeMemory('slop-guard', async () => ({
  memory: new SlopGuardMemory(slopGuardOptions.parse({})),
  sandbox: (await new FakeEnvironment().open({
    runId: 'r',
    trialId: 't',
    purpose: 'agent',
    task: sampleTask(1, { seed: undefined }),
    needs: {},
  })) as Sandbox,
}));

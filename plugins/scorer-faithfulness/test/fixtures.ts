import { tmpdir } from 'node:os';
import type { Component, StepScoreContext, Task, TrialSpec, WorkspaceFile } from '@longhaul/core';
import { FakeSnapshotStore, sampleTask } from '@longhaul/testkit';
import { openTestGateway, scriptedModel } from '@longhaul/testkit/gateway';

export const components: Component[] = [
  {
    id: 'token-bucket',
    description: 'A token bucket per client: capacity C, refilled at r tokens per second.',
  },
  { id: 'audit-log', description: 'Every rejected request is appended to an audit log with the client id.' },
];

export const repository: Record<string, string> = {
  'main.py': 'from limiter.bucket import TokenBucket\n\nbucket = TokenBucket(10, 1.0)\n',
  'limiter/bucket.py':
    'class TokenBucket:\n    def __init__(self, capacity, rate):\n        self.capacity = capacity\n\n    def refill(self, now):\n        pass\n\n\ndef unused_helper():\n    return 0\n',
  'NOTES.md': 'audit log: planned but not written\n',
};

export function files(map: Record<string, string>): WorkspaceFile[] {
  return Object.entries(map).map(([path, text]) => ({
    path,
    mode: 0o644,
    data: new TextEncoder().encode(text),
  }));
}

export const judgeGateway = (replies: unknown[]) => openTestGateway({ judge: scriptedModel(replies) });

export async function stepContext(
  repo: Record<string, string>,
  overrides: Partial<Task> = {},
  stepIndex = 1,
): Promise<StepScoreContext> {
  const snapshots = new FakeSnapshotStore();
  const snapshot = await snapshots.put(files(repo));
  const task = sampleTask(2, { components, ...overrides });
  return {
    task,
    step: task.steps[stepIndex]!,
    trial: { id: 'trial-1' } as TrialSpec,
    snapshot,
    snapshots,
    openSandbox: async () => {
      throw new Error('the faithfulness scorer reads the snapshot, it opens no sandbox');
    },
    outDir: tmpdir(),
    status: 'ok',
    signal: new AbortController().signal,
  };
}

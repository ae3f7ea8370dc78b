import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { StepScoreContext, WorkspaceFile } from '@longhaul/core';
import { FakeSnapshotStore, sampleTask } from '@longhaul/testkit';

const encoder = new TextEncoder();

/** Workspace files from path → text. */
export const files = (tree: Record<string, string>): WorkspaceFile[] =>
  Object.entries(tree).map(([path, text]) => ({ path, mode: 0o644, data: encoder.encode(text) }));

/**
 * A step's context: the workspace the turn began from (`start`), the snapshot after it, and a task
 * whose seed holds `seed`.
 */
export async function stepContext(
  start: Record<string, string>,
  after: Record<string, string>,
  seed: Record<string, string> = {},
): Promise<StepScoreContext> {
  const snapshots = new FakeSnapshotStore();
  const root = await mkdtemp(join(tmpdir(), 'integrity-'));
  for (const [path, text] of Object.entries(seed)) {
    await mkdir(dirname(join(root, 'seed', path)), { recursive: true });
    await writeFile(join(root, 'seed', path), text);
  }
  const task = { ...sampleTask(1), seed: join(root, 'seed') };
  return {
    task,
    step: task.steps[0]!,
    trial: {} as StepScoreContext['trial'],
    snapshot: await snapshots.put(files(after)),
    start: await snapshots.put(files(start)),
    snapshots,
    openSandbox: () => Promise.reject(new Error('the integrity scorer needs no sandbox')),
    outDir: root,
    status: 'ok',
    signal: new AbortController().signal,
  };
}

import { cp, mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClassifiedError,
  type Environment,
  excludeMatcher,
  FolderWorkspace,
  parseSize,
  type Sandbox,
  type SandboxSpec,
  type SnapshotStore,
} from '@longhaul/core';
import { FolderSandbox } from './folder-sandbox.js';
import type { Options } from './index.js';

/** Opens each sandbox in a new temporary folder: `workspace/` for the agent, `home/` as its HOME. */
export class FolderEnvironment implements Environment {
  constructor(
    private readonly options: Options,
    private readonly snapshots: SnapshotStore | undefined,
  ) {}

  async open(spec: SandboxSpec): Promise<Sandbox> {
    if (!this.snapshots)
      throw new ClassifiedError('sandbox', 'no snapshot store is bound (open sandboxes inside a run)');
    // Real paths: links inside the workspace are judged against where it really is.
    const root = await realpath(await mkdtemp(join(tmpdir(), `{{id}}-${spec.purpose}-`)));
    const workspace = join(root, 'workspace');
    await mkdir(join(root, 'home'), { recursive: true });
    await mkdir(workspace, { recursive: true });
    const files = new FolderWorkspace(
      workspace,
      excludeMatcher(this.options.excludes),
      parseSize(this.options.maxFileSize),
      // The runner's own files for the workspace go beside it, removed with the sandbox.
      { scratch: root },
    );
    const sandbox = new FolderSandbox(root, this.snapshots, files);
    try {
      await sandbox.judge.create();
      // A sandbox starts from a snapshot (a resumed step, a scorer's own) or from the task's seed.
      if (spec.from) await sandbox.restore(spec.from);
      else if (spec.task.seed) await cp(spec.task.seed, workspace, { recursive: true });
    } catch (error) {
      await sandbox.close();
      throw new ClassifiedError('sandbox', `cannot fill the workspace of ${spec.task.id}: ${String(error)}`, {
        cause: error,
      });
    }
    return sandbox;
  }

  /** What goes into lock.json for this environment. */
  async describe(): Promise<Record<string, unknown>> {
    return { platform: process.platform, node: process.version };
  }
}

import { cp, mkdir, mkdtemp, realpath, stat } from 'node:fs/promises';
import { arch, platform, release, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  ClassifiedError,
  type Environment,
  excludeMatcher,
  parseSize,
  type SandboxSpec,
  type SnapshotStore,
} from '@longhaul/core';
import { LocalSandbox } from './local-sandbox.js';
import type { LocalOptions } from './options.js';
import { WorkspaceFiles } from './workspace-files.js';

function lastLines(text: string, count = 20): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

/** Opens sandboxes that are temp directories on the host (see LocalSandbox for what that isolates). */
export class LocalEnvironment implements Environment {
  constructor(
    private readonly options: LocalOptions,
    private readonly store?: SnapshotStore,
  ) {}

  async open(spec: SandboxSpec): Promise<LocalSandbox> {
    const base = this.options.root ?? tmpdir();
    await mkdir(base, { recursive: true });
    const label = `${spec.trialId}-${spec.purpose}`.replace(/[^A-Za-z0-9._-]/g, '-');
    const root = await mkdtemp(join(base, `longhaul-${label}-`));
    const dirs = { root, home: join(root, 'home'), tmp: join(root, 'tmp') };
    const workspace = join(root, 'workspace');
    await Promise.all([workspace, dirs.home, dirs.tmp].map((dir) => mkdir(dir)));
    const files = new WorkspaceFiles(
      await realpath(workspace),
      excludeMatcher(this.options.excludes),
      parseSize(this.options.maxFileSize),
    );
    const sandbox = new LocalSandbox(basename(root), files, dirs, this.options, this.store);
    try {
      if (spec.from !== undefined) {
        await sandbox.restore(spec.from);
      } else if (spec.task.seed !== undefined) {
        await this.copySeed(spec, files.root);
      }
      await this.setup(spec, sandbox);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  private async copySeed(spec: SandboxSpec, workspace: string): Promise<void> {
    const seed = spec.task.seed!;
    const isDir = await stat(seed).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) {
      throw new ClassifiedError('sandbox', `seed directory ${seed} of task ${spec.task.id} does not exist`);
    }
    await cp(seed, workspace, { recursive: true, verbatimSymlinks: true });
  }

  private async setup(spec: SandboxSpec, sandbox: LocalSandbox): Promise<void> {
    for (const command of spec.needs.setup ?? []) {
      const result = await sandbox.exec(['sh', '-c', command], { timeoutMs: this.options.setupTimeoutMs });
      if (result.exitCode === 0 && !result.timedOut) continue;
      const outcome = result.timedOut
        ? `timed out after ${this.options.setupTimeoutMs} ms`
        : `exited with ${result.exitCode}`;
      const output = lastLines(`${result.stdout}\n${result.stderr}`);
      throw new ClassifiedError(
        'sandbox',
        `setup command \`${command}\` of task ${spec.task.id} ${outcome}${output ? `:\n${output}` : ''}`,
      );
    }
  }

  async describe(): Promise<Record<string, unknown>> {
    return {
      environment: 'local',
      platform: platform(),
      arch: arch(),
      release: release(),
      node: process.version,
    };
  }
}

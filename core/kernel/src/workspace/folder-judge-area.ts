import { chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { JudgeArea } from '../contracts/sandbox.js';
import { excludeMatcher } from './excludes.js';
import { FolderWorkspace } from './folder-workspace.js';
import type { WorkspaceOwner } from './workspace-handle.js';

/** The helper `confine` names, at the top of the area: root's, hidden from the program under test. */
export const confineHelper = '.confine';

/**
 * The helper of an area that isolates nothing: the program under test with umask 022, as the
 * contract promises (a judge may run its test runner with another: the pytest judge uses 0).
 */
export const plainConfineScript = '#!/bin/sh\numask 022\nexec "$@"\n';

/**
 * A judge area that is a folder on the host, for environments whose sandboxes are host folders
 * (the local environment, the `longhaul new environment` template). Its files are read and
 * written through a FolderWorkspace, so no link a program left there leads a write out of it.
 * `confine` names a shell script of the area (`.confine`), which the environment writes from the
 * paths `share` opened: so the argv it gives has no blank in any word, and a test that splits its
 * entrypoint at blanks gets it whole.
 */
export class FolderJudgeArea implements JudgeArea {
  private readonly files: FolderWorkspace;
  private readonly shared = new Set<string>();

  constructor(
    /** The folder, with links resolved; commands see it at the same path. */
    readonly path: string,
    readonly guarded: boolean,
    /** The helper's text for the paths shared so far (relative, sorted). */
    private readonly script: (shared: readonly string[]) => string = () => plainConfineScript,
    /** The host user the area's files are given to, when it is not the runner (a sandbox's own). */
    private readonly owner?: WorkspaceOwner,
  ) {
    this.files = new FolderWorkspace(
      path,
      excludeMatcher([]),
      Number.POSITIVE_INFINITY,
      owner ? { owner } : {},
    );
  }

  /** Makes the folder, with its helper. */
  async create(): Promise<this> {
    await mkdir(this.path, { mode: 0o700 });
    if (this.owner) await chown(this.path, this.owner.uid, this.owner.gid);
    await this.writeHelper();
    return this;
  }

  private writeHelper(): Promise<void> {
    return this.files.writeFile(confineHelper, this.script([...this.shared].sort()), 0o700);
  }

  writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    return this.files.writeFile(path, data, options.mode ?? 0o644);
  }

  readFile(path: string): Promise<Uint8Array> {
    return this.files.readFile(path);
  }

  async share(path: string): Promise<void> {
    // As the folder holds it now: a share never names a path out of the area.
    const real = await this.files.resolve(path);
    if (real === this.path) throw new Error('share() takes a path inside the judge area, not the area');
    this.shared.add(real.slice(this.path.length + 1));
    await this.writeHelper();
  }

  confine(argv: readonly string[]): string[] {
    return [join(this.path, confineHelper), ...argv];
  }
}

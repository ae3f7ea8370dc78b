import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Memory, MemoryContext, MemoryPatch } from '@longhaul/core';
import type { NotesOptions } from './options.js';

/**
 * Asks the agent to keep a notes file and carries it across fresh sessions and workspace resets:
 * after every turn the file is copied to the memory's state directory, and before every turn it
 * is put back into the workspace if it is missing there.
 */
export class NotesMemory implements Memory {
  readonly ownedFiles: string[];

  constructor(private readonly options: NotesOptions) {
    this.ownedFiles = [options.file];
  }

  private saved(ctx: MemoryContext): string {
    return join(ctx.stateDir, this.options.file);
  }

  async beforeTurn(ctx: MemoryContext): Promise<MemoryPatch> {
    const patch: MemoryPatch = {};
    if (this.options.remind === 'always' || ctx.freshSession) {
      patch.suffix = this.options.instruction.replaceAll('{{file}}', this.options.file);
    }
    const inWorkspace = await ctx.sandbox.readFile(this.options.file).then(
      () => true,
      () => false,
    );
    if (!inWorkspace) {
      const saved = await readFile(this.saved(ctx), 'utf8').catch(() => undefined);
      if (saved !== undefined) patch.files = { [this.options.file]: saved };
    }
    return patch;
  }

  async afterTurn(ctx: MemoryContext): Promise<void> {
    // A missing file (deleted, or a sandbox that died with the turn) keeps the last saved copy.
    const data = await ctx.sandbox.readFile(this.options.file).catch(() => undefined);
    if (data === undefined) return;
    await mkdir(dirname(this.saved(ctx)), { recursive: true });
    await writeFile(this.saved(ctx), data);
  }
}

/** No memory: the baseline every other memory is compared with. */
export class NoMemory implements Memory {
  async beforeTurn(): Promise<MemoryPatch> {
    return {};
  }

  async afterTurn(): Promise<void> {}
}

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Memory, MemoryContext, MemoryPatch, TurnResult } from '@longhaul/core';
import type { Options } from './index.js';

/**
 * A memory that runs around every turn: after a turn it keeps the agent's final message in the
 * trial's state folder (which survives a resume); before the first turn of a new session it puts
 * that message before the prompt, so a fresh session knows where the last one stopped.
 */
export class HandoverMemory implements Memory {
  constructor(private readonly options: Options) {}

  async beforeTurn(ctx: MemoryContext): Promise<MemoryPatch> {
    if (!ctx.freshSession) return {};
    const last = await readFile(this.file(ctx), 'utf8').catch(() => '');
    if (last.trim() === '') return {};
    return { prefix: `${this.options.heading}\n\n${last}\n\n---\n\n` };
  }

  async afterTurn(ctx: MemoryContext, result: TurnResult): Promise<void> {
    // A turn that ended in a fault or a limit says little about the work: keep the earlier message.
    if (result.status !== 'ok' || result.finalText.trim() === '') return;
    await writeFile(this.file(ctx), result.finalText.trim().slice(-this.options.maxChars));
  }

  private file(ctx: MemoryContext): string {
    return join(ctx.stateDir, 'last-message.md');
  }
}

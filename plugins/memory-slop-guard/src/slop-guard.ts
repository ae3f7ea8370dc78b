import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Memory, MemoryContext, MemoryPatch } from '@longhaul/core';
import { analyzeProject, selectSources, sourceCandidates } from '@longhaul/metrics';
import { qualityOf, renderBrief, type TurnQuality } from './brief.js';
import type { SlopGuardOptions } from './options.js';

/**
 * Structural feedback between turns: after each turn the quality metrics run over the workspace,
 * and the worst offenders go into the next turn's prompt. It tests whether pointing at the
 * damage changes the degradation slope that instructions in the prompt alone do not.
 */
export class SlopGuardMemory implements Memory {
  constructor(private readonly options: SlopGuardOptions) {}

  async beforeTurn(ctx: MemoryContext): Promise<MemoryPatch> {
    const brief = await readFile(join(ctx.stateDir, 'brief.md'), 'utf8').catch(() => undefined);
    if (!brief) return {};
    return this.options.placement === 'prefix' ? { prefix: `${brief}\n\n` } : { suffix: `\n\n${brief}` };
  }

  async afterTurn(ctx: MemoryContext): Promise<void> {
    const decoder = new TextDecoder();
    // Only what may be a source is read: a workspace's data and caches can be large.
    const candidate = sourceCandidates({ exclude: this.options.exclude });
    const only = (entry: { path: string; type: string }) => entry.type === 'dir' || candidate(entry.path);
    const files = await ctx.sandbox.pull({ only }).catch(() => undefined);
    if (!files) return;
    const sources = selectSources(
      files.map((file) => ({ path: file.path, text: () => decoder.decode(file.data) })),
      { exclude: this.options.exclude },
    );
    const report = await analyzeProject(sources);
    await mkdir(ctx.stateDir, { recursive: true });
    const historyFile = join(ctx.stateDir, 'quality.jsonl');
    const history = (await readFile(historyFile, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TurnQuality);
    const brief = renderBrief(report, history.at(-1), this.options);
    await appendFile(historyFile, `${JSON.stringify(qualityOf(ctx.turnIndex, report))}\n`);
    await writeFile(join(ctx.stateDir, 'brief.md'), brief ?? '');
  }
}

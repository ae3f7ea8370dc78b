import type { Score, SnapshotRef, SnapshotStore, StepScoreContext } from '@longhaul/core';
import type { Options } from './index.js';

/**
 * A step scorer: reads the workspace the step left (its snapshot) and the one before it, and
 * scores how large the code is. Scores are stored as `<id>.<metric>` (`{{id}}.lines`).
 */
export class SizeScorer {
  readonly scope = 'step';
  /** Bump it when the scores change meaning: `longhaul regrade` records which version scored. */
  readonly version = '1';

  constructor(private readonly options: Options) {}

  async score(ctx: StepScoreContext): Promise<Score[]> {
    const now = await this.measure(ctx.snapshots, ctx.snapshot);
    const before = ctx.previous ? await this.measure(ctx.snapshots, ctx.previous) : { files: 0, lines: 0 };
    return [
      { metric: 'files', value: now.files },
      { metric: 'lines', value: now.lines, detail: { perFile: now.perFile } },
      { metric: 'lines_added', value: now.lines - before.lines },
    ];
  }

  private async measure(snapshots: SnapshotStore, ref: SnapshotRef) {
    const perFile: Record<string, number> = {};
    for (const file of await snapshots.get(ref)) {
      if (this.options.extensions && !this.options.extensions.some((ext) => file.path.endsWith(ext)))
        continue;
      const text = Buffer.from(file.data).toString('utf8');
      perFile[file.path] = text.split('\n').filter((line) => line.trim().length > 0).length;
    }
    const counts = Object.values(perFile);
    return { files: counts.length, lines: counts.reduce((sum, n) => sum + n, 0), perFile };
  }
}

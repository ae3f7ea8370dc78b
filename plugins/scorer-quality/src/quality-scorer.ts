import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Score, Scorer, StepScoreContext, WorkspaceFile } from '@longhaul/core';
import {
  analyzeProject,
  type PreviousResults,
  type ProjectReport,
  type SourceFile,
  selectSources,
  sourceCandidates,
} from '@longhaul/metrics';
import type { QualityOptions } from './options.js';

/** Bumped whenever a metric's definition changes, so regraded runs say which one they used. */
export const version = '3';

const decoder = new TextDecoder();

/** The sources of a snapshot that the options select (.gitignore files of the snapshot included). */
export function sourcesOf(files: readonly WorkspaceFile[], options: QualityOptions): SourceFile[] {
  return selectSources(
    files.map((file) => ({ path: file.path, text: () => decoder.decode(file.data) })),
    {
      exclude: options.exclude,
      defaultExcludes: options.defaultExcludes,
      gitignore: options.gitignore,
      ...(options.languages ? { languages: options.languages } : {}),
    },
  );
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, path);
}

const jsonl = (rows: readonly unknown[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join('');

/** Trials whose last step's per-file results are kept (the most recently scored ones). */
const keptTrials = 16;

/**
 * Step scorer `quality`: reads the step's snapshot (no sandbox) and the previous one for churn.
 * It keeps the per-file results of each trial's last scored step in memory, so the next step of
 * the same trial re-measures only the files whose content changed (the report is the same as a
 * full measurement). A new process (a resumed run) starts with a full measurement.
 */
export class QualityScorer implements Extract<Scorer, { scope: 'step' }> {
  readonly scope = 'step';
  readonly version = version;
  private readonly lastResults = new Map<string, PreviousResults>();

  constructor(private readonly options: QualityOptions) {}

  async score(ctx: StepScoreContext): Promise<Score[]> {
    // Only what may be a source is read: the rest of a large workspace never is.
    const include = sourceCandidates({
      exclude: this.options.exclude,
      defaultExcludes: this.options.defaultExcludes,
      ...(this.options.languages ? { languages: this.options.languages } : {}),
    });
    const current = sourcesOf(await ctx.snapshots.get(ctx.snapshot, { include }), this.options);
    const previous = ctx.previous
      ? sourcesOf(await ctx.snapshots.get(ctx.previous, { include }), this.options)
      : undefined;
    ctx.signal.throwIfAborted();
    const trial = `${ctx.trial.runId}/${ctx.trial.id}`;
    const report = await analyzeProject(current, this.options, previous, this.lastResults.get(trial));
    this.keep(trial, report.results);
    await this.write(ctx.outDir, report);
    return Object.entries(report.summary).map(([metric, value]) => ({ metric, value }));
  }

  private keep(trial: string, results: PreviousResults): void {
    this.lastResults.delete(trial);
    this.lastResults.set(trial, results);
    for (const oldest of this.lastResults.keys()) {
      if (this.lastResults.size <= keptTrials) break;
      this.lastResults.delete(oldest);
    }
  }

  private async write(outDir: string, report: ProjectReport): Promise<void> {
    await mkdir(outDir, { recursive: true });
    const scores = Object.fromEntries(
      Object.entries(report.summary).map(([key, value]) => [`quality.${key}`, value]),
    );
    await writeAtomic(
      join(outDir, 'quality.json'),
      `${JSON.stringify({ version, scores, options: report.options, reusedFiles: report.summary.files - report.measured }, null, 2)}\n`,
    );
    if (!this.options.details) return;
    await writeAtomic(join(outDir, 'quality.files.jsonl'), jsonl(report.files));
    await writeAtomic(join(outDir, 'quality.callables.jsonl'), jsonl(report.callables));
    await writeAtomic(join(outDir, 'quality.findings.jsonl'), jsonl(report.hits));
    await writeAtomic(join(outDir, 'quality.clones.jsonl'), jsonl(report.clones));
  }
}

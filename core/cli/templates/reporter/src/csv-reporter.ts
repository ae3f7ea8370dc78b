import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReportContext, Reporter } from '@longhaul/core';
import type { Options } from './index.js';

/**
 * A reporter gets the run's events as they happen (`onEvent`, unused here) and, at the end, every
 * trial's record (`finish`). This one writes one CSV row per step: trial, task, condition,
 * repeat, step, status, duration and each score (`<scorer>.<metric>`) in a column of its own.
 */
export class CsvReporter implements Reporter {
  constructor(private readonly options: Options) {}

  async finish(ctx: ReportContext): Promise<void> {
    const file = join(ctx.runDir, this.options.file);
    // Written whole under another name, then renamed: a reader never sees half a file.
    await writeFile(`${file}.tmp`, csvTable(ctx));
    await rename(`${file}.tmp`, file);
    ctx.print(`${this.options.file}: ${file}\n`);
  }
}

/** The CSV text for a run: a header, then a row per step of every trial. */
export function csvTable(ctx: Pick<ReportContext, 'trials'>): string {
  const scoreKeys = [
    ...new Set(ctx.trials.flatMap(({ record }) => record.steps.flatMap((step) => Object.keys(step.scores)))),
  ].sort();
  const header = ['trial', 'task', 'condition', 'repeat', 'step', 'status', 'seconds', ...scoreKeys];
  const rows = ctx.trials.flatMap(({ record }) =>
    record.steps.map((step) => [
      record.id,
      record.task,
      record.condition,
      record.repeat,
      step.id,
      step.status,
      step.durationMs / 1000,
      ...scoreKeys.map((key) => step.scores[key] ?? ''),
    ]),
  );
  return `${[header, ...rows].map((row) => row.map(cell).join(',')).join('\n')}\n`;
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function cell(value: unknown): string {
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

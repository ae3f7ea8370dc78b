import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stepOutcome, type TrialRecord } from '@longhaul/core';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { LoadedRun } from './load-run.js';

/**
 * One value of one run in long ("tidy") form: a row per run × trial × step × metric. A trial-scope
 * score has no step; an experiment-scope score (pass@k per condition) has no task, trial or step.
 */
export interface TidyRow {
  run: string;
  condition: string;
  /** The harness plugin's id (the condition names its label). */
  harness: string | null;
  /** The model the agent ran, as its session said, else the harness's `model` option. */
  model: string | null;
  task: string | null;
  trial: string | null;
  repeat: number | null;
  /** The step's number, from 1; null for a trial or experiment score. */
  step: number | null;
  step_id: string | null;
  metric: string;
  /** The value; a yes/no is 1/0, and null is a value not measured (never 0). */
  value: number | null;
  /** How the step (or trial) ended: `scored`, `error:<class>` or `cancelled`. */
  outcome: string;
  /** The `longhaul regrade` that gave this value; null for the run's own scores. */
  regrade: string | null;
}

export const tidyColumns = [
  'run',
  'condition',
  'harness',
  'model',
  'task',
  'trial',
  'repeat',
  'step',
  'step_id',
  'metric',
  'value',
  'outcome',
  'regrade',
] as const satisfies readonly (keyof TidyRow)[];

export type ExportFormat = 'csv' | 'jsonl' | 'parquet';
export const exportFormats: readonly ExportFormat[] = ['csv', 'jsonl', 'parquet'];

const measured = (value: unknown): number | null =>
  typeof value === 'boolean'
    ? Number(value)
    : typeof value === 'number' && Number.isFinite(value)
      ? value
      : null;

/** The first model a trial's sessions name (trajectory.jsonl's session.start), read line by line. */
async function sessionModel(runDir: string, trialDir: string): Promise<string | undefined> {
  const steps = join(runDir, trialDir, 'steps');
  const folders = await readdir(steps).catch(() => [] as string[]);
  for (const folder of folders.sort()) {
    const lines = createInterface({
      input: createReadStream(join(steps, folder, 'trajectory.jsonl')).on('error', () => {}),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    try {
      for await (const line of lines) {
        if (!line.includes('session.start')) continue;
        try {
          const event = JSON.parse(line) as { type?: string; model?: unknown };
          if (event.type === 'session.start' && typeof event.model === 'string') return event.model;
        } catch {
          // A line cut short by a crash: the next one may say it.
        }
      }
    } catch {
      // No trajectory for this step (a fault before the turn): try the next.
    } finally {
      lines.close();
    }
  }
  return undefined;
}

/** The harness plugin of each harness label in experiment.yaml, with its `model` option. */
function harnessesOf(experiment: Record<string, unknown> | undefined) {
  const list = Array.isArray(experiment?.harness) ? experiment.harness : [];
  const byLabel = new Map<string, { id: string; model?: string }>();
  for (const ref of list) {
    if (ref === null || typeof ref !== 'object') continue;
    const { id, label, options } = ref as { id?: unknown; label?: unknown; options?: { model?: unknown } };
    if (typeof id !== 'string') continue;
    const model = typeof options?.model === 'string' ? options.model : undefined;
    byLabel.set(typeof label === 'string' ? label : id, { id, ...(model ? { model } : {}) });
  }
  return byLabel;
}

/** How a trial ended, as a row's outcome for its trial-scope scores. */
function trialOutcome(record: TrialRecord): string {
  const found = stepOutcome(undefined, record.status);
  return found.outcome === 'errored' ? `error:${found.errorClass}` : found.outcome;
}

/**
 * Every value of a run as tidy rows: each step's scores with its cost, time and tokens, each
 * trial's scores, each regrade's scores (with the regrade's id) and the experiment scorers'
 * per-condition scores from summary.json.
 */
export async function tidyRows(run: LoadedRun): Promise<TidyRow[]> {
  const harnesses = harnessesOf(run.experiment);
  const rows: TidyRow[] = [];
  const regraded = new Map<string, { id: string; scores: Record<string, unknown> }[]>();
  for (const regrade of run.regrades)
    for (const step of regrade.steps) {
      const key = `${step.trialId}\u0000${step.index}`;
      regraded.set(key, [...(regraded.get(key) ?? []), { id: regrade.id, scores: step.scores }]);
    }
  const conditionModels = new Map<string, string | null>();
  for (const trial of run.trials) {
    const { record } = trial;
    const harness = harnesses.get(record.condition.split('/')[0] ?? '');
    const model = (await sessionModel(run.dir, trial.dir)) ?? harness?.model ?? null;
    if (!conditionModels.has(record.condition)) conditionModels.set(record.condition, model);
    const base = {
      run: run.name,
      condition: record.condition,
      harness: harness?.id ?? null,
      model,
      task: record.task,
      trial: record.id,
      repeat: record.repeat,
    };
    for (const step of [...record.steps].sort((a, b) => a.index - b.index)) {
      const found = stepOutcome(step, record.status);
      const outcome = found.outcome === 'errored' ? `error:${found.errorClass}` : found.outcome;
      const row = (metric: string, value: unknown, regrade: string | null = null): TidyRow => ({
        ...base,
        step: step.index + 1,
        step_id: step.id,
        metric,
        value: measured(value),
        outcome,
        regrade,
      });
      for (const [metric, value] of Object.entries(step.scores)) rows.push(row(metric, value));
      rows.push(
        row('cost.usd', step.usage.costUsd),
        row('time.seconds', step.durationMs / 1000),
        row('tokens.input', step.usage.inputTokens),
        row('tokens.output', step.usage.outputTokens),
      );
      for (const regrade of regraded.get(`${record.id}\u0000${step.index}`) ?? [])
        for (const [metric, value] of Object.entries(regrade.scores))
          rows.push(row(metric, value, regrade.id));
    }
    for (const [metric, value] of Object.entries(record.scores))
      rows.push({
        ...base,
        step: null,
        step_id: null,
        metric,
        value: measured(value),
        outcome: trialOutcome(record),
        regrade: null,
      });
  }
  for (const score of run.summary?.experimentScores ?? []) {
    const harness = harnesses.get(score.condition?.split('/')[0] ?? '');
    rows.push({
      run: run.name,
      condition: score.condition ?? '',
      harness: harness?.id ?? null,
      model: conditionModels.get(score.condition ?? '') ?? harness?.model ?? null,
      task: null,
      trial: null,
      repeat: null,
      step: null,
      step_id: null,
      metric: score.key,
      value: measured(score.value),
      outcome: 'scored',
      regrade: null,
    });
  }
  return rows;
}

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180); null is empty. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(rows: readonly TidyRow[]): string {
  const lines = [tidyColumns.join(',')];
  for (const row of rows) lines.push(tidyColumns.map((column) => csvField(row[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function toJsonl(rows: readonly TidyRow[]): string {
  return rows
    .map((row) => `${JSON.stringify(Object.fromEntries(tidyColumns.map((c) => [c, row[c]])))}\n`)
    .join('');
}

/** Parquet, written by hyparquet-writer: strings as UTF-8, repeat and step as INT32, value as DOUBLE. */
export function toParquet(rows: readonly TidyRow[]): Uint8Array {
  const numbers = new Set(['repeat', 'step']);
  const buffer = parquetWriteBuffer({
    columnData: tidyColumns.map((name) => ({
      name,
      data: rows.map((row) => row[name]),
      type: name === 'value' ? 'DOUBLE' : numbers.has(name) ? 'INT32' : 'STRING',
      nullable: true,
    })),
  });
  return new Uint8Array(buffer);
}

/** The rows in a format, as the bytes of a file. */
export function formatRows(rows: readonly TidyRow[], format: ExportFormat): Uint8Array | string {
  return format === 'csv' ? toCsv(rows) : format === 'jsonl' ? toJsonl(rows) : toParquet(rows);
}

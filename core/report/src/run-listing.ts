import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadedRun } from './load-run.js';
import { buildRunModel } from './model.js';
import { type RunStatus, runState } from './run-state.js';

/** One run as the viewer's index lists it. */
export interface RunListing {
  name: string;
  /** When the run started (ISO), from lock.json or its first event. */
  started?: string;
  experiment?: string;
  /** running, interrupted (stopped or killed: resume finishes it), finished, or failed. */
  status: RunStatus;
  /** Why it is interrupted or failed, or that another host writes it. */
  reason?: string;
  conditions: string[];
  /** Trials that ended (any status but running or pending). */
  trials: number;
  /** Trials the run plans; null where its events do not say. */
  planned: number | null;
  /** Trials running now. */
  running: number;
  /** The headline score per condition: the strict solve rate, or the lead table's first figure. */
  headline: { condition: string; label: string; value: number | null; text: string }[];
  /** Trials and steps that ended in a fault. */
  erroredTrials: number;
  erroredSteps: number;
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** A number shown in a text cell (`83.3`, `83.3%`, `0.50±0.1`), or null. */
const leadingNumber = (text: string): number | null => {
  const match = /^-?\d+(\.\d+)?/.exec(text.trim());
  return match ? Number(match[0]) : null;
};

export async function runListing(run: LoadedRun): Promise<RunListing> {
  const model = buildRunModel(run, 0);
  const lock = await readJson<{ experiment?: { name?: string }; createdAt?: string }>(
    join(run.dir, 'lock.json'),
  );
  const state = run.state ?? (await runState(run.dir));
  const first = (await readFile(join(run.dir, 'events.jsonl'), 'utf8').catch(() => ''))
    .slice(0, 4096)
    .split('\n')[0];
  let started = lock?.createdAt;
  if (!started && first) {
    try {
      started = (JSON.parse(first) as { ts?: string }).ts;
    } catch {
      started = undefined;
    }
  }
  started ??= (await stat(run.dir)).mtime.toISOString();
  const strict = model.conditionRows.filter((row) => row.strict !== null);
  let headline: RunListing['headline'] = strict.map((row) => ({
    condition: row.condition,
    label: 'strict',
    value: row.strict,
    text: `${(row.strict! * 100).toFixed(1)}%`,
  }));
  if (headline.length === 0) {
    // No solve rates (SLUMP, a benchmark of one's own): the lead table's first figure per row.
    const lead = model.figures.find(
      (figure) => figure.kind === 'table' && model.leads.includes(`${figure.reporter}.${figure.id}`),
    );
    if (lead?.kind === 'table' && lead.columns.length > 1) {
      const [label, value] = [lead.columns[0]!, lead.columns[1]!];
      headline = lead.rows.map((row) => ({
        condition: String(row[label.key] ?? ''),
        label: value.label,
        value:
          typeof row[value.key] === 'number'
            ? (row[value.key] as number)
            : leadingNumber(String(row[value.key] ?? '')),
        text: String(row[value.key] ?? '-'),
      }));
    }
  }
  return {
    name: run.name,
    started,
    experiment: lock?.experiment?.name,
    status: state.status,
    ...(state.reason ? { reason: state.reason } : {}),
    conditions: model.conditions,
    trials: model.trials.filter((trial) => trial.status !== 'running' && trial.status !== 'pending').length,
    planned: state.planned ?? null,
    running: model.trials.filter((trial) => trial.status === 'running').length,
    headline,
    erroredTrials: model.counts.reduce((sum, row) => sum + row.erroredTrials, 0),
    erroredSteps: model.counts.reduce((sum, row) => sum + row.errored, 0),
  };
}

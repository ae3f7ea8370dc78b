import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadedRun } from './load-run.js';
import { buildRunModel } from './model.js';

/** One run as the viewer's index lists it. */
export interface RunListing {
  name: string;
  /** When the run started (ISO), from lock.json or its first event. */
  started?: string;
  experiment?: string;
  /** `ok`, `error`, `cancelled` (how its last session ended), or `unfinished` (running, or stopped without an end). */
  status: string;
  conditions: string[];
  trials: number;
  /** The headline score per condition: the strict solve rate, or the lead table's first figure. */
  headline: { condition: string; label: string; value: number | null; text: string }[];
  /** Trials and steps that ended in a fault. */
  erroredTrials: number;
  erroredSteps: number;
}

/** The end of events.jsonl: enough to find how its last session ended, however long the run. */
async function tail(path: string, bytes = 64 * 1024): Promise<string> {
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return '';
  try {
    const { size } = await file.stat();
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    await file.read(buffer, 0, buffer.length, start);
    // A cut first line is dropped by the parse below.
    return buffer.toString('utf8');
  } finally {
    await file.close();
  }
}

/** The last run.start or run.end among the events: `unfinished` or the end's status. */
function lastStatus(events: string): string | undefined {
  const lines = events.split('\n').reverse();
  for (const line of lines) {
    if (!line.includes('"run.')) continue;
    try {
      const event = JSON.parse(line) as { type: string; status?: string };
      if (event.type === 'run.end') return event.status ?? 'ended';
      if (event.type === 'run.start') return 'unfinished';
    } catch {
      // The line cut by the tail's start, or one cut short by a crash.
    }
  }
  return undefined;
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
  const events = await tail(join(run.dir, 'events.jsonl'));
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
    status: lastStatus(events) ?? 'unfinished',
    conditions: model.conditions,
    trials: model.trials.length,
    headline,
    erroredTrials: model.counts.reduce((sum, row) => sum + row.erroredTrials, 0),
    erroredSteps: model.counts.reduce((sum, row) => sum + row.errored, 0),
  };
}

import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runWriterState } from '@longhaul/core';

/**
 * Where a run stands: `running` (a process writes it now), `interrupted` (stopped with Ctrl-C, or
 * killed: `longhaul resume` finishes it), `finished` (its last session ended with every trial
 * done), `failed` (its last session ended with trials in error, or its reporters failing).
 */
export type RunStatus = 'running' | 'interrupted' | 'finished' | 'failed';

export interface RunState {
  status: RunStatus;
  /** Trials the run plans (its last session's run.start); absent in a run without events. */
  planned?: number;
  /** Why, in a few words: `Ctrl-C`, `no process writes it`, `written on another host`. */
  reason?: string;
}

/** The end of events.jsonl: enough to find how its last session ended, however long the run. */
export async function tail(path: string, bytes = 64 * 1024): Promise<string> {
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

type RunEvent = { type: 'run.start'; trials?: number } | { type: 'run.end'; status?: string };

/** The run.start and run.end events among some lines, last first. */
function runEvents(text: string): RunEvent[] {
  return text
    .split('\n')
    .reverse()
    .flatMap((line) => {
      if (!line.includes('"run.')) return [];
      try {
        const event = JSON.parse(line) as { type?: string };
        return event.type === 'run.start' || event.type === 'run.end' ? [event as RunEvent] : [];
      } catch {
        // The line cut by the tail's start, or one cut short by a crash.
        return [];
      }
    });
}

export async function runState(runDir: string): Promise<RunState> {
  const events = join(runDir, 'events.jsonl');
  const last = runEvents(await tail(events));
  let start: RunEvent | undefined = last.find((event) => event.type === 'run.start');
  if (!start) {
    // A long session's start is before the tail: the file's first line is a start too.
    const head = (await readFile(events, 'utf8').catch(() => '')).slice(0, 4096).split('\n')[0] ?? '';
    start = runEvents(head)[0];
  }
  const planned = start?.type === 'run.start' && typeof start.trials === 'number' ? start.trials : undefined;
  const withPlan = (state: RunState): RunState => (planned === undefined ? state : { ...state, planned });
  const end = last[0]?.type === 'run.end' ? last[0] : undefined;
  if (end?.type === 'run.end') {
    if (end.status === 'ok') return withPlan({ status: 'finished' });
    if (end.status === 'cancelled')
      return withPlan({ status: 'interrupted', reason: 'stopped (Ctrl-C or SIGTERM)' });
    return withPlan({ status: 'failed', reason: 'trials in error or a reporter failed' });
  }
  const writer = await runWriterState(runDir);
  if (writer === 'running') return withPlan({ status: 'running' });
  if (writer === 'elsewhere') return withPlan({ status: 'running', reason: 'written on another host' });
  // No session's start or end recorded (a store written by other means): its summary says it ended.
  if (!start && (await stat(join(runDir, 'summary.json')).catch(() => undefined)))
    return { status: 'finished', reason: 'no events; summary.json written' };
  return withPlan({ status: 'interrupted', reason: 'killed: no process writes it' });
}

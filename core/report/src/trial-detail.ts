import { join, relative } from 'node:path';
import type { TrajectoryEvent } from '@longhaul/core';
import type { LoadedTrial } from './load-run.js';
import { truncate } from './truncate.js';

/** One entry of a step's trajectory as the page lists it. */
export interface TrajectoryItem {
  kind: string;
  title: string;
  text: string;
  /** A tool call's result (the `tool.result` of the same id), shown under the call. */
  result?: { text: string; isError: boolean };
}

export interface StepDetail {
  index: number;
  id: string;
  dir: string;
  prompt: string;
  diff: string;
  trajectory: TrajectoryItem[];
  cases: { id: string; category: string; passed: boolean; output: string }[];
  scores: Record<string, number | boolean | null>;
  /** Tamper signals, one line each: `added conftest.py (hooks): conftest.py: pytest loads it by itself`. */
  signals: string[];
  /** Failed tool calls, one line each: `write_file: Invalid arguments …`. */
  toolFailures: string[];
}

function item(event: TrajectoryEvent): TrajectoryItem {
  switch (event.type) {
    case 'message':
      return { kind: 'message', title: event.role, text: event.text };
    case 'reasoning':
      return { kind: 'reasoning', title: 'reasoning', text: event.text };
    case 'tool.call':
      return {
        kind: 'tool-call',
        title: `${event.name}`,
        text: `${event.explanation ? `${event.explanation}\n` : ''}${JSON.stringify(event.input, null, 2)}`,
      };
    case 'tool.result':
      return { kind: event.isError ? 'tool-error' : 'tool-result', title: 'result', text: event.output };
    case 'error':
      return { kind: 'error', title: event.errorClass, text: event.message };
    case 'turn.end':
      return { kind: 'turn-end', title: `turn end: ${event.result.status}`, text: event.result.finalText };
    case 'session.start':
      return {
        kind: 'session',
        title: `session ${event.resumed ? 'resumed' : 'started'}`,
        text: event.model ?? '',
      };
    case 'session.end':
      return { kind: 'session', title: 'session end', text: event.reason };
    case 'compaction':
      return { kind: 'session', title: `compaction (${event.trigger})`, text: '' };
    default:
      return { kind: event.type, title: event.type, text: JSON.stringify(event) };
  }
}

/**
 * A step's events as a conversation: each tool call carries its result, wherever in the turn the
 * result came; a result with no call shows on its own.
 */
export function conversation(events: TrajectoryEvent[]): TrajectoryItem[] {
  const items: TrajectoryItem[] = [];
  const calls = new Map<string, TrajectoryItem>();
  for (const event of events) {
    if (event.type === 'tool.result') {
      const call = calls.get(event.id);
      if (call && !call.result) {
        call.result = { text: event.output, isError: event.isError };
        if (event.isError) call.kind = 'tool-call tool-error';
        continue;
      }
    }
    const entry = item(event);
    if (event.type === 'tool.call') calls.set(event.id, entry);
    items.push(entry);
  }
  return items;
}

/** A trial's steps with every text cut to `limit` characters. */
export async function trialDetail(trial: LoadedTrial, limit: number): Promise<StepDetail[]> {
  const steps = await trial.steps();
  return steps.map((step) => {
    const items = conversation(step.trajectory);
    // The trajectory shares one budget: long agent sessions keep their first items and a note.
    let left = limit * 2;
    const kept: TrajectoryItem[] = [];
    for (const entry of items) {
      if (left <= 0) {
        kept.push({
          kind: 'note',
          title: 'truncated',
          text: `${items.length - kept.length} more items in ${join(step.dir, 'trajectory.jsonl')}`,
        });
        break;
      }
      const each = Math.min(left, Math.max(100, limit / 4));
      const text = truncate(entry.text, each);
      const result = entry.result && { ...entry.result, text: truncate(entry.result.text, each) };
      // An item costs its texts, its title and about 40 characters of JSON around them.
      left -= text.length + (result?.text.length ?? 0) + entry.title.length + 40;
      kept.push(result ? { ...entry, text, result } : { ...entry, text });
    }
    return {
      index: step.index,
      id: step.id,
      dir: step.dir,
      prompt: truncate(step.prompt, limit, join(step.dir, 'prompt.md')),
      diff: truncate(step.diff, limit, join(step.dir, 'diff.patch')),
      trajectory: kept,
      cases: step.cases.map((found) => ({
        id: found.id,
        category: found.category,
        passed: found.passed,
        // The note names the outcome file from the step's folder: short, as it comes once per case.
        output: truncate(
          found.output,
          Math.max(80, limit / 8),
          found.file === undefined ? undefined : relative(step.dir, found.file),
        ),
      })),
      scores: step.scores,
      signals: step.signals.map((s) => truncate(`${s.change} ${s.path} (${s.kind}): ${s.why}`, limit)),
      toolFailures: step.toolFailures.map((f) => truncate(`${f.tool}: ${f.error}`, limit)),
    };
  });
}

import { randomUUID } from 'node:crypto';
import type { Session, Task, TrajectoryEvent, TurnOptions, TurnResult } from '@longhaul/core';

export const emptyTask: Task = {
  id: 'task',
  title: 'task',
  source: 'test',
  root: '/nonexistent',
  entrypoint: 'true',
  language: 'text',
  environment: {},
  steps: [],
  timeouts: { caseMs: 1000 },
  hash: 'x',
  metadata: {},
};

export function turnOptions(overrides: Partial<TurnOptions> = {}): TurnOptions {
  return {
    signal: new AbortController().signal,
    focus: { task: emptyTask, steps: [] },
    limits: { timeoutMs: 60_000 },
    ...overrides,
  };
}

/** Runs a turn to its turn.end (and stops reading there, as the kernel does). */
export async function runTurn(
  session: Session,
  prompt: string,
  options: TurnOptions = turnOptions(),
): Promise<{ events: TrajectoryEvent[]; result: TurnResult }> {
  const events: TrajectoryEvent[] = [];
  for await (const event of session.turn(prompt, options)) {
    events.push(event);
    if (event.type === 'turn.end') break;
  }
  if (events.at(-1)?.type !== 'turn.end') throw new Error('the turn ended without a turn.end');
  const last = events.at(-1) as Extract<TrajectoryEvent, { type: 'turn.end' }>;
  return { events, result: last.result };
}

export function ofType<T extends TrajectoryEvent['type']>(
  events: TrajectoryEvent[],
  type: T,
): Extract<TrajectoryEvent, { type: T }>[] {
  return events.filter((event): event is Extract<TrajectoryEvent, { type: T }> => event.type === type);
}

/**
 * A command that waits `seconds` and outlives the turn unless the harness ends it (Claude Code
 * refuses a bare `sleep`; a program that waits is allowed), with a marker of its own: the checks
 * look for the marker in the host's whole process table, where another run of these tests, or
 * another suite's long command, may be sleeping too.
 */
export function markedSleep(seconds: number): { command: string; marker: string } {
  const marker = `longhaul-${randomUUID()}`;
  return { command: `python3 -c 'import time; time.sleep(${seconds})' ${marker}`, marker };
}

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

/** Runs a turn to its end and returns every event and the turn's result. */
export async function runTurn(
  session: Session,
  prompt: string,
  options: TurnOptions = turnOptions(),
): Promise<{ events: TrajectoryEvent[]; result: TurnResult }> {
  const events: TrajectoryEvent[] = [];
  for await (const event of session.turn(prompt, options)) events.push(event);
  const ends = events.filter((event) => event.type === 'turn.end');
  if (ends.length !== 1 || events.at(-1)?.type !== 'turn.end')
    throw new Error(`a turn must end with exactly one turn.end, got ${ends.length}`);
  const last = events.at(-1) as Extract<TrajectoryEvent, { type: 'turn.end' }>;
  return { events, result: last.result };
}

export function ofType<T extends TrajectoryEvent['type']>(
  events: TrajectoryEvent[],
  type: T,
): Extract<TrajectoryEvent, { type: T }>[] {
  return events.filter((event): event is Extract<TrajectoryEvent, { type: T }> => event.type === type);
}

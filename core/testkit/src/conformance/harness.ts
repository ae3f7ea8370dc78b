import type { Harness, Sandbox, Session, TrajectoryEvent, TurnFocus } from '@longhaul/core';
import { expect } from 'vitest';
import { type Check, describeChecks, isJsonValue } from './checks.js';

/** What one check needs: a harness, a sandbox it may work in, and what its turn is about. */
export interface HarnessFixture {
  harness: Harness;
  sandbox: Sandbox;
  focus: TurnFocus;
  prompt?: string;
  dispose?(): Promise<void>;
}

/**
 * Makes a fixture. For `slow`, the harness's turn must keep working for several seconds unless it
 * is aborted (a scripted model with a delay, an oracle with `delayMs`), so that aborts can be tested.
 */
export type HarnessFixtureFactory = (pace: 'quick' | 'slow') => Promise<HarnessFixture>;

export interface HarnessContext {
  fixture: HarnessFixtureFactory;
  /** How long a turn may take to end after its signal aborts. */
  abortWithinMs: number;
}

const eventTypes = [
  'session.start',
  'session.end',
  'message',
  'reasoning',
  'tool.call',
  'tool.result',
  'usage',
  'compaction',
  'error',
  'turn.end',
];
const statusPattern = /^(ok|failed|timeout|budget|cancelled|error:[a-z_][a-z0-9_.-]*)$/;

async function withFixture(
  context: HarnessContext,
  pace: 'quick' | 'slow',
  use: (fixture: HarnessFixture) => Promise<void>,
): Promise<void> {
  const fixture = await context.fixture(pace);
  try {
    await use(fixture);
  } finally {
    await fixture.dispose?.();
  }
}

/** Runs a turn to its end, failing when it takes longer than `limitMs`. */
async function runTurn(
  session: Session,
  fixture: HarnessFixture,
  signal: AbortSignal,
  limitMs: number,
): Promise<TrajectoryEvent[]> {
  const events: TrajectoryEvent[] = [];
  const consume = (async () => {
    for await (const event of session.turn(fixture.prompt ?? 'Solve the step.', {
      signal,
      focus: fixture.focus,
      limits: {},
    })) {
      events.push(event);
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the turn did not end within ${limitMs} ms`)), limitMs);
  });
  try {
    await Promise.race([consume, late]);
  } finally {
    clearTimeout(timer);
  }
  return events;
}

function expectWellFormed(events: TrajectoryEvent[]): void {
  const ends = events.filter((e) => e.type === 'turn.end');
  expect(ends.length, 'a turn yields exactly one turn.end').toBe(1);
  expect(events.at(-1)?.type, 'turn.end must be the last event').toBe('turn.end');
  const calls = new Set<string>();
  for (const event of events) {
    expect(eventTypes, `unknown event type ${event.type}`).toContain(event.type);
    expect(isJsonValue(event), `event ${event.type} is not plain JSON`).toBe(true);
    if (event.type === 'tool.call') calls.add(event.id);
    if (event.type === 'tool.result') {
      expect(calls.has(event.id), `tool.result ${event.id} answers no earlier tool.call`).toBe(true);
    }
  }
  const end = ends[0]!;
  if (end.type !== 'turn.end') return;
  expect(end.result.status).toMatch(statusPattern);
  expect(typeof end.result.finalText).toBe('string');
  expect(end.result.durationMs).toBeGreaterThanOrEqual(0);
  for (const key of [
    'inputTokens',
    'outputTokens',
    'cacheReadTokens',
    'cacheWriteTokens',
    'costUsd',
  ] as const) {
    const value = end.result.usage[key];
    expect(Number.isFinite(value) && value >= 0, `usage.${key} is ${value}`).toBe(true);
  }
}

function endStatus(events: TrajectoryEvent[]): string | undefined {
  const end = events.at(-1);
  return end?.type === 'turn.end' ? end.result.status : undefined;
}

/** A check that aborts a slow turn `afterMs` into it (0: before it starts) and expects `reason` back. */
function abortCheck(name: string, reason: string, afterMs: number): Check<HarnessContext> {
  return {
    name,
    run: (context) =>
      withFixture(context, 'slow', async (fixture) => {
        const session = await fixture.harness.openSession(fixture.sandbox, {
          trialId: 'conformance.trial.r1',
        });
        const controller = new AbortController();
        if (afterMs === 0) controller.abort(reason);
        else setTimeout(() => controller.abort(reason), afterMs);
        const started = Date.now();
        const events = await runTurn(session, fixture, controller.signal, afterMs + context.abortWithinMs);
        expect(Date.now() - started).toBeLessThan(afterMs + context.abortWithinMs);
        expectWellFormed(events);
        expect(endStatus(events)).toBe(reason);
        await session.close();
      }),
  };
}

export const harnessChecks: Check<HarnessContext>[] = [
  {
    name: 'declares its capabilities',
    run: (context) =>
      withFixture(context, 'quick', async ({ harness }) => {
        expect(typeof harness.capabilities.resume).toBe('boolean');
        expect(typeof harness.capabilities.hooks).toBe('boolean');
        expect(Array.isArray(harness.capabilities.memoryFiles)).toBe(true);
        for (const file of harness.capabilities.memoryFiles) expect(typeof file).toBe('string');
      }),
  },
  {
    name: 'prepare returns a plain JSON record for lock.json',
    run: (context) =>
      withFixture(context, 'quick', async ({ harness, sandbox }) => {
        const lock = await harness.prepare(sandbox);
        expect(typeof lock === 'object' && lock !== null && !Array.isArray(lock)).toBe(true);
        expect(isJsonValue(lock)).toBe(true);
      }),
  },
  {
    name: 'a turn yields well-formed events ending in exactly one turn.end',
    run: (context) =>
      withFixture(context, 'quick', async (fixture) => {
        await fixture.harness.prepare(fixture.sandbox);
        const session = await fixture.harness.openSession(fixture.sandbox, {
          trialId: 'conformance.trial.r1',
        });
        expect(typeof session.id).toBe('string');
        const events = await runTurn(session, fixture, new AbortController().signal, 60_000);
        expectWellFormed(events);
        await session.close();
      }),
  },
  abortCheck("an abort ends the turn promptly with the signal's reason", 'timeout', 300),
  abortCheck('a turn given an aborted signal ends at once with its reason', 'cancelled', 0),
  {
    name: 'session state is plain JSON, and a harness that can resume continues from it',
    run: (context) =>
      withFixture(context, 'quick', async (fixture) => {
        const { harness, sandbox } = fixture;
        const session = await harness.openSession(sandbox, { trialId: 'conformance.trial.r1' });
        await runTurn(session, fixture, new AbortController().signal, 60_000);
        const state = session.state();
        expect(isJsonValue(state ?? null), 'state() must be plain JSON').toBe(true);
        await session.close();
        if (!harness.capabilities.resume) return;
        const resumed = await harness.openSession(sandbox, {
          trialId: 'conformance.trial.r1',
          resume: state,
        });
        expectWellFormed(await runTurn(resumed, fixture, new AbortController().signal, 60_000));
        await resumed.close();
      }),
  },
];

export interface DescribeHarnessOptions {
  /** How long a turn may take to end after an abort (default 5000 ms). */
  abortWithinMs?: number;
  timeoutMs?: number;
}

/** The harness conformance suite; `fixture` is called once per check, so checks share no state. */
export function describeHarness(
  name: string,
  fixture: HarnessFixtureFactory,
  options: DescribeHarnessOptions = {},
): void {
  describeChecks(
    `harness conformance: ${name}`,
    harnessChecks,
    () => ({ fixture, abortWithinMs: options.abortWithinMs ?? 5_000 }),
    undefined,
    options.timeoutMs ?? 120_000,
  );
}

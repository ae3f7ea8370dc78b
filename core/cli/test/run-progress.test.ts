import type { StampedRunEvent } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { LiveView, PlainView, progressView } from '../src/progress/index.js';

const ESC = '\x1b';
const t0 = Date.parse('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.25 };

const events: StampedRunEvent[] = [
  { ts: at(0), type: 'run.start', runId: 'r', runDir: '/runs/r', trials: 3, resumed: false },
  {
    ts: at(0),
    type: 'trial.start',
    trialId: 'a',
    task: 'wordfreq',
    condition: 'oracle/checkpoints/none',
    steps: 3,
  },
  {
    ts: at(1),
    type: 'trial.start',
    trialId: 'b',
    task: 'worklog',
    condition: 'oracle/single-shot/none',
    steps: 4,
  },
  { ts: at(2), type: 'step.start', trialId: 'a', step: 1, stepId: 'filters' },
  { ts: at(2), type: 'turn.start', trialId: 'a', turn: 1, steps: [1], cycle: 0, deadline: at(602) },
  ...[0, 1, 2, 3].map((step) => ({
    ts: at(2),
    type: 'step.start' as const,
    trialId: 'b',
    step,
    stepId: `s${step}`,
  })),
  { ts: at(2), type: 'turn.start', trialId: 'b', turn: 0, steps: [0, 1, 2, 3], cycle: 0, deadline: at(2402) },
  {
    ts: at(3),
    type: 'trajectory',
    trialId: 'a',
    turn: 1,
    // The agent's own estimate: the view shows the gateway's metered cost instead.
    event: { type: 'usage', usage: { costUsd: 1.63 } },
  },
  { ts: at(3), type: 'trial.usage', trialId: 'a', usage: { ...usage, costUsd: 0.125 } },
];

function recorder(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, stream: { isTTY, columns: 200, write: (text: string) => chunks.push(text) } };
}

describe('the live progress view', () => {
  it("shows one line per running trial: task, condition, step k/n, phase, the step's time against its limit, metered cost", () => {
    const { stream } = recorder(true);
    const view = new LiveView(stream, stream, () => t0 + 65_000);
    for (const event of events) view.onEvent(event);
    expect(view.lines().slice(1)).toEqual([
      '  wordfreq  oracle/checkpoints/none  step 2/3  agent 1:03/10:00  $0.125',
      '  worklog  oracle/single-shot/none  steps 1-4/4  agent 1:03/40:00  $0.000',
    ]);
    expect(view.lines()[0]).toMatch(/^longhaul: 0\/3 trials done, 2 running, \d+:\d\d, \$0\.125$/);
    view.onEvent({ ts: at(66), type: 'trial.phase', trialId: 'a', phase: 'scoring' });
    expect(view.lines()[1]).toBe('  wordfreq  oracle/checkpoints/none  step 2/3  scoring 1:03/10:00  $0.125');
    // Repeats of one task and condition are told apart by their repeat number.
    view.onEvent({
      ...(events[1] as StampedRunEvent & { type: 'trial.start' }),
      trialId: 'wordfreq.oracle.checkpoints.none.r2',
    });
    expect(view.lines()[3]).toMatch(/^ {2}wordfreq r2 {2}oracle\/checkpoints\/none {2}step -\/3/);
    view.close();
  });

  it('gives the run an ETA from the rate of completed steps and the steps left', () => {
    const { stream } = recorder(true);
    const view = new LiveView(stream, stream, () => t0 + 10_000);
    for (const event of events.slice(0, 3)) view.onEvent(event);
    expect(view.lines()[0]).not.toContain('ETA');
    view.onEvent({
      ts: at(10),
      type: 'step.end',
      trialId: 'a',
      step: 0,
      stepId: 'count',
      status: 'ok',
      scores: {},
    });
    // One step in 10 s; left: 2 of a, 4 of b, and the third trial at the mean of 3.5 steps.
    expect(view.lines()[0]).toContain(', ETA 1:35,');
    view.close();
  });

  it('counts the trials a resumed run had already completed', () => {
    const { stream } = recorder(true);
    const view = new LiveView(stream, stream, () => t0);
    view.onEvent({
      ts: at(0),
      type: 'run.start',
      runId: 'r',
      runDir: '/runs/r',
      trials: 12,
      resumed: true,
      complete: 8,
    });
    expect(view.lines()[0]).toMatch(/^longhaul: 8\/12 trials done, 0 running/);
    view.close();
  });

  it('redraws in place: moves up over the lines it drew and clears them before drawing again', () => {
    const { chunks, stream } = recorder(true);
    const view = new LiveView(stream, stream, () => t0 + 5000);
    view.onEvent(events[0]!);
    view.onEvent(events[1]!);
    expect(chunks[0]).not.toContain(ESC);
    expect(chunks[1]!.startsWith(`${ESC}[1F${ESC}[J`)).toBe(true);
    expect(chunks[1]!.split('\n')).toHaveLength(3);
    view.onEvent(events[2]!);
    expect(chunks[2]!.startsWith(`${ESC}[2F${ESC}[J`)).toBe(true);
    // A finished trial leaves a line above the live lines, which are drawn again below it.
    view.onEvent({ ts: at(4), type: 'trial.end', trialId: 'a', status: 'ok', usage, durationMs: 4000 });
    const tail = chunks.slice(3).join('');
    expect(
      tail.startsWith(`${ESC}[3F${ESC}[Ja: ok in 0:04, $0.250\nlonghaul: 1/3 trials done, 1 running`),
    ).toBe(true);
    view.close();
    expect(chunks.at(-1)).toBe(`${ESC}[2F${ESC}[J`);
  });

  it('cuts lines to the terminal width so none wraps', () => {
    const chunks: string[] = [];
    const view = new LiveView({ isTTY: true, columns: 30, write: (text: string) => chunks.push(text) });
    for (const event of events.slice(0, 3)) view.onEvent(event);
    expect(view.lines().length).toBe(3);
    const drawn = chunks.at(-1)!.split(`${ESC}[J`).at(-1)!;
    for (const line of drawn.split('\n').filter(Boolean)) {
      expect(line.length).toBeLessThanOrEqual(29);
    }
    view.close();
  });
});

describe('plain progress lines', () => {
  it('prints trial starts, step ends and trial ends, one line each, when not on a TTY', () => {
    const { chunks, stream } = recorder(false);
    const view = progressView(stream);
    expect(view).toBeInstanceOf(PlainView);
    for (const event of events) view.onEvent(event);
    view.onEvent({
      ts: at(5),
      type: 'step.end',
      trialId: 'a',
      step: 1,
      stepId: 'filters',
      status: 'ok',
      scores: { 'tests.strict': 1, 'tests.pass_rate': 0.875 },
    });
    view.onEvent({
      ts: at(6),
      type: 'trial.end',
      trialId: 'a',
      status: 'timeout',
      usage,
      durationMs: 125_000,
    });
    expect(chunks.join('')).toBe(
      [
        'run /runs/r: 3 trials',
        'trial a: start (wordfreq, oracle/checkpoints/none, 3 steps)',
        'trial b: start (worklog, oracle/single-shot/none, 4 steps)',
        'trial a: step 2 filters ok tests.strict=1 tests.pass_rate=0.88',
        'trial a: timeout in 2:05, $0.250',
        '',
      ].join('\n'),
    );
    expect(chunks.join('')).not.toContain(ESC);
  });
});

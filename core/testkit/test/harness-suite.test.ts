import type { Harness, Session, TrajectoryEvent } from '@longhaul/core';
import {
  describeHarness,
  FakeHarness,
  type FakeHarnessOptions,
  type HarnessContext,
  harnessChecks,
  sampleTask,
} from '../src/index.js';
import { describeSuiteTeeth, openFakeSandbox } from './support/failures.js';

type Rewrite = (events: TrajectoryEvent[], signal: AbortSignal) => TrajectoryEvent[];

/** A harness whose sessions pass their events through `rewrite` (and may report another state). */
function rewritten(inner: Harness, rewrite: Rewrite, state?: () => unknown): Harness {
  return {
    capabilities: inner.capabilities,
    prepare: (sandbox) => inner.prepare(sandbox),
    async openSession(sandbox, options) {
      const session = await inner.openSession(sandbox, options);
      const wrapped: Session = {
        id: session.id,
        async *turn(prompt, turnOptions) {
          const events: TrajectoryEvent[] = [];
          for await (const event of session.turn(prompt, turnOptions)) events.push(event);
          yield* rewrite(events, turnOptions.signal);
        },
        state: state ?? (() => session.state()),
        close: () => session.close(),
      };
      return wrapped;
    },
  };
}

type Make = (pace: 'quick' | 'slow') => Harness;
const fake =
  (options: FakeHarnessOptions = {}): Make =>
  (pace) =>
    new FakeHarness({ turns: () => (pace === 'slow' ? { sleepMs: 30_000 } : {}), ...options });

function context(make: Make): HarnessContext {
  return {
    abortWithinMs: 1_000,
    fixture: async (pace) => {
      const sandbox = await openFakeSandbox();
      const task = sampleTask(1);
      return {
        harness: make(pace),
        sandbox,
        focus: { task, steps: task.steps },
        dispose: () => sandbox.close(),
      };
    },
  };
}

const broken: [string, Make, string][] = [
  [
    'declares a capability that is not a boolean',
    fake({ capabilities: { resume: 'yes' as never } }),
    'capabilities',
  ],
  ['returns a lock record that is not plain JSON', fake({ prepare: { at: new Date() } }), 'prepare returns'],
  [
    'ends a turn without turn.end',
    (pace) => rewritten(fake()(pace), (events) => events.filter((e) => e.type !== 'turn.end')),
    'exactly one turn.end',
  ],
  [
    'ends a turn twice',
    (pace) => rewritten(fake()(pace), (events) => [...events, events.at(-1)!]),
    'exactly one turn.end',
  ],
  [
    'answers a tool call that was never made',
    fake({ turns: [{ events: [{ type: 'tool.result', id: 'nope', output: '', isError: false }] }] }),
    'exactly one turn.end',
  ],
  [
    'ignores an abort',
    (pace) => new FakeHarness({ turns: () => (pace === 'slow' ? { hang: true } : {}) }),
    'abort ends the turn promptly',
  ],
  [
    "reports failed instead of the signal's reason",
    (pace) =>
      rewritten(fake()(pace), (events, signal) =>
        events.map((e) =>
          e.type === 'turn.end' && signal.aborted ? { ...e, result: { ...e.result, status: 'failed' } } : e,
        ),
      ),
    'aborted signal ends at once',
  ],
  [
    'keeps a session state that is not JSON',
    (pace) =>
      rewritten(
        fake()(pace),
        (e) => e,
        () => new Map(),
      ),
    'session state',
  ],
];

describeSuiteTeeth(
  'harness',
  harnessChecks,
  () => context(fake()),
  broken.map(([what, make, fragment]) => [what, () => context(make), fragment]),
);

describeHarness('the fake harness', (pace) => context(fake()).fixture(pace));

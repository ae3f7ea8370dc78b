import type { Reporter } from '@longhaul/core';
import { describeReporter, RecordingReporter, type ReporterContext, reporterChecks } from '../src/index.js';
import { describeSuiteTeeth } from './support/failures.js';

const context = (make: () => Reporter): ReporterContext => ({ reporter: make });

const broken: [string, () => Reporter, string][] = [
  [
    'assumes at least one trial',
    () => ({
      finish: async (ctx) => {
        ctx.print(`best: ${ctx.trials[0]!.record.id}`);
      },
    }),
    'finishes a run without trials',
  ],
  [
    'chokes on a log event',
    () => ({
      onEvent: (event) => {
        if (event.type === 'log') throw new Error('unexpected event');
      },
      finish: async () => {},
    }),
    'takes the events',
  ],
];

describeSuiteTeeth(
  'reporter',
  reporterChecks,
  () => context(() => new RecordingReporter()),
  broken.map(([what, make, fragment]) => [what, () => context(make), fragment]),
);

describeReporter('the recording reporter', () => new RecordingReporter());

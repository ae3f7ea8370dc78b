import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReportContext, Reporter, StampedRunEvent } from '@longhaul/core';
import { expect } from 'vitest';
import { type Check, describeChecks } from './checks.js';

export interface ReporterContext {
  reporter: () => Reporter | Promise<Reporter>;
}

async function emptyRun(use: (context: ReportContext, printed: string[]) => Promise<void>): Promise<void> {
  const runDir = await mkdtemp(join(tmpdir(), 'longhaul-reporter-'));
  const printed: string[] = [];
  try {
    await use(
      {
        runDir,
        experiment: { name: 'empty', file: join(runDir, 'experiment.yaml') },
        trials: [],
        experimentScores: [],
        print: (text) => printed.push(text),
      },
      printed,
    );
  } finally {
    await rm(runDir, { recursive: true, force: true });
  }
}

const ts = new Date(0).toISOString();
const emptyRunEvents: StampedRunEvent[] = [
  { type: 'run.start', runId: 'empty', runDir: '/runs/empty', trials: 0, resumed: false, ts },
  { type: 'log', level: 'info', message: 'nothing to run', ts },
  { type: 'run.end', runId: 'empty', status: 'ok', ts },
];

export const reporterChecks: Check<ReporterContext>[] = [
  {
    name: 'finishes a run without trials',
    run: (context) =>
      emptyRun(async (report, printed) => {
        const reporter = await context.reporter();
        await reporter.finish(report);
        for (const text of printed) expect(typeof text).toBe('string');
      }),
  },
  {
    name: 'takes the events of a run without trials, then finishes it',
    run: (context) =>
      emptyRun(async (report) => {
        const reporter = await context.reporter();
        for (const event of emptyRunEvents) reporter.onEvent?.(event);
        await reporter.finish(report);
      }),
  },
];

/** The reporter conformance suite. */
export function describeReporter(name: string, factory: () => Reporter | Promise<Reporter>): void {
  describeChecks(`reporter conformance: ${name}`, reporterChecks, () => ({ reporter: factory }));
}

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Executor, LocalExecutor, type WorkerHost } from '@longhaul/core';
import { afterAll } from 'vitest';
import { describeExecutor, executorChecks, runExecutorFixture } from '../src/index.js';
import { describeSuiteTeeth } from './support/failures.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function context(executor: Executor) {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-executor-suite-'));
  dirs.push(dir);
  return runExecutorFixture(dir, executor, 2);
}

/** An executor that runs trials with the in-process pool, through `execute`. */
const local = (execute: Executor['execute']): Executor => ({ execute });

/** Runs trials through the worker host it serves, dropping their events. */
class Silent implements Executor {
  readonly remote = true;
  private host?: WorkerHost;
  async serve(host: WorkerHost) {
    this.host = host;
  }
  async execute(specs: Parameters<Executor['execute']>[0], _w: unknown, stop: AbortSignal) {
    const records = new Map();
    for (const spec of specs) {
      records.set(spec.id, await this.host!.runTrial(spec, { emit: () => {}, stop, abort: stop }));
    }
    return records;
  }
}

const pool = new LocalExecutor(2);

describeSuiteTeeth('executor', executorChecks, () => context(pool), [
  [
    'runs trials without their scorers',
    () =>
      context(
        local((specs, worker, stop) =>
          pool.execute(
            specs.map((s) => ({ ...s, scorers: [] })),
            worker,
            stop,
          ),
        ),
      ),
    'status and scores',
  ],
  [
    'writes files of its own into the trial directories',
    () =>
      context(
        local((specs, worker, stop) =>
          pool.execute(
            specs,
            async (spec) => {
              const record = await worker(spec);
              await writeFile(join(spec.runDir, 'trials', spec.id, 'worker.log'), 'ran here\n');
              return record;
            },
            stop,
          ),
        ),
      ),
    'trial directories',
  ],
  ["drops the trials' events", () => context(new Silent()), 'events'],
  [
    'leaves a trial out of its result',
    () =>
      context(
        local(async (specs, worker, stop) => {
          const records = await pool.execute(specs, worker, stop);
          records.delete(specs[0]!.id);
          return records;
        }),
      ),
    'reporters',
  ],
]);

describeExecutor('local', () => new LocalExecutor(2));

import type { ExecutorContext, TrialRecord, TrialSpec } from '@longhaul/core';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { Queue } from 'bullmq';
import { afterEach, expect, it } from 'vitest';
import { jobIdOf, QueueExecutor, queueOptions, runWorker } from '../src/index.js';
import { Cluster, until } from './cluster.js';

let cluster: Cluster | undefined;
const stopping = new AbortController();
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

it.skipIf(!prerequisites.redis())(
  'records the attempts and reason of the last failure, however late the coordinator looks',
  async () => {
    cluster = await Cluster.create();
    const options = queueOptions.parse({ url: cluster.url, queue: 'stale', pollSeconds: 0.2, attempts: 2 });
    const spec = {
      id: 'task.c.r1',
      runId: 'run-1',
      runDir: cluster.runDir,
      task: { id: 'task' },
      condition: { key: 'c' },
      repeat: 1,
    } as TrialSpec;
    let tries = 0;
    const serving = runWorker({
      ...options,
      concurrency: 1,
      stop: stopping.signal,
      abort: stopping.signal,
      host: {
        log: () => {},
        runTrial: async () => {
          tries += 1;
          throw new Error(`cannot read the run's experiment (try ${tries})`);
        },
      },
    });
    const queue = new Queue(options.queue, { connection: { url: cluster.url } });
    const written: TrialRecord[] = [];
    const context: ExecutorContext = {
      emit: () => {},
      // The coordinator reads the job, then the trial, then asks whether the job failed. On a busy
      // machine every attempt can fail in between: this context waits for that to happen.
      readTrial: async () => {
        await until(
          async () => (await queue.getJob(jobIdOf(spec)))?.failedReason?.includes('try 2') ?? false,
          600_000,
          'the job to fail its last attempt',
        );
        return undefined;
      },
      writeTrial: async (record) => {
        written.push(record);
      },
    };
    try {
      const results = await new QueueExecutor(options).execute([spec], undefined, stopping.signal, context);
      expect(results.get(spec.id)?.status).toBe('error:worker');
      expect(written[0]?.error).toMatch(/\(try 2\) \(tried 2 times\)$/);
    } finally {
      await queue.close();
      stopping.abort();
      await serving;
    }
  },
  1_200_000,
);

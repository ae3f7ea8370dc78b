import { errorMessage, isTrialComplete, type TrialSpec, type WorkerHost } from '@longhaul/core';
import { DelayedError, type Job, Worker } from 'bullmq';
import { connectionOf, type QueueOptions } from './options.js';

export interface WorkerOptions extends Pick<QueueOptions, 'url' | 'queue' | 'lockSeconds'> {
  /** Trials at once. */
  concurrency: number;
  /** Runs a trial with this machine's environment and gateway. */
  host: WorkerHost;
  /** Take no new trial; running ones start no new turn and are handed back to the queue. */
  stop: AbortSignal;
  /** Abort running turns too. */
  abort: AbortSignal;
}

/**
 * `longhaul worker`: takes trial jobs and runs them until `stop`. BullMQ's lock on a job is the
 * heartbeat: it is renewed every half `lockSeconds`, and a job whose worker vanished (SIGKILL,
 * a lost machine) is given to another worker after `lockSeconds`, which goes on from the trial's
 * last complete step. A job fails with `error:<class>: <reason>` so its fault keeps its class.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const { host, stop, abort } = options;
  const lockMs = Math.round(options.lockSeconds * 1000);
  const process = async (job: Job<TrialSpec>, token?: string) => {
    const spec = job.data;
    host.log(`trial ${spec.id} of ${spec.runId}: started (attempt ${job.attemptsMade + 1})`);
    let record: Awaited<ReturnType<WorkerHost['runTrial']>>;
    try {
      record = await host.runTrial(spec, {
        emit: (event) => {
          job.updateProgress(event).catch(() => {});
        },
        stop,
        abort,
      });
    } catch (error) {
      host.log(`trial ${spec.id} of ${spec.runId}: cannot run here: ${errorMessage(error)}`);
      throw new Error(`error:worker: ${errorMessage(error)}`);
    }
    if (!isTrialComplete(record)) {
      // Stopped by this worker's shutdown: the trial goes back to the queue for another worker.
      host.log(`trial ${spec.id} of ${spec.runId}: handed back at its last complete step`);
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    host.log(`trial ${spec.id} of ${spec.runId}: ${record.status}`);
    return { status: record.status };
  };
  const worker = new Worker<TrialSpec>(options.queue, process, {
    connection: connectionOf(options),
    concurrency: options.concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    autorun: false,
  });
  let unreachable = false;
  worker.on('error', (error) => {
    if (unreachable) return;
    unreachable = true;
    host.log(`queue: ${error.message}; waiting for it to come back`);
  });
  worker.on('ready', () => {
    unreachable = false;
  });
  const closing = new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    stop.addEventListener('abort', () => resolve(), { once: true });
  }).then(() => worker.close());
  host.log(
    `worker: taking trials from queue '${options.queue}' at ${connectionOf(options).url}, ${options.concurrency} at once`,
  );
  await Promise.all([worker.run(), closing]);
}

import { errorMessage, isTrialComplete, type TrialSpec, type WorkerHost } from '@longhaul/core';
import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
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
  const process = async (job: Job<TrialSpec>, token?: string, lost?: AbortSignal) => {
    const spec = job.data;
    const startedAt = Date.now();
    // A worker vanishing with the job counts as a try, as a failure does (see `maxStalledCount`).
    const tries = job.attemptsMade + job.stalledCounter;
    if (tries >= (job.opts.attempts ?? 1)) {
      throw new UnrecoverableError(
        `error:worker: its workers vanished or failed while running it (${job.stalledCounter} vanished)`,
      );
    }
    host.log(`trial ${spec.id} of ${spec.runId}: started (attempt ${job.attemptsMade + 1})`);
    // `lost`: this worker's lock on the job lapsed (Redis was away longer than lockSeconds), so the
    // job may already be another worker's; the trial is aborted here rather than run twice.
    const signals = (signal: AbortSignal) => (lost ? AbortSignal.any([signal, lost]) : signal);
    let record: Awaited<ReturnType<WorkerHost['runTrial']>>;
    try {
      record = await host.runTrial(spec, {
        emit: (event) => {
          job.updateProgress(event).catch(() => {});
        },
        stop: signals(stop),
        abort: signals(abort),
      });
    } catch (error) {
      host.log(`trial ${spec.id} of ${spec.runId}: cannot run here: ${errorMessage(error)}`);
      throw new Error(`error:worker: ${errorMessage(error)}`);
    }
    if (lost?.aborted && !isTrialComplete(record)) {
      host.log(`trial ${spec.id} of ${spec.runId}: left to the queue (this worker lost its lock on it)`);
      throw new Error('error:worker: the worker lost its lock on the job');
    }
    if (!isTrialComplete(record)) {
      // Stopped by this worker's shutdown: the trial goes back to the queue for another worker.
      host.log(`trial ${spec.id} of ${spec.runId}: handed back at its last complete step`);
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    // A trial that ended before this attempt (its worker lost the job while finishing it) ran nothing here.
    const earlier = record.endedAt !== undefined && Date.parse(record.endedAt) < startedAt;
    host.log(`trial ${spec.id} of ${spec.runId}: ${earlier ? 'had already ended ' : ''}${record.status}`);
    return { status: record.status };
  };
  const worker = new Worker<TrialSpec>(options.queue, process, {
    connection: connectionOf(options),
    concurrency: options.concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    // BullMQ fails a job stalled more than this, whatever its attempts; the processor above counts
    // stalls among the job's attempts instead.
    maxStalledCount: Number.MAX_SAFE_INTEGER,
    autorun: false,
  });
  let unreachable = false;
  worker.on('error', (error) => {
    // A lost lock is reported by 'lockRenewalFailed' below; the others are connection faults.
    if (unreachable || error.message.startsWith('could not renew lock')) return;
    unreachable = true;
    host.log(`queue: ${error.message}; waiting for it to come back`);
  });
  worker.on('ready', () => {
    unreachable = false;
  });
  worker.on('lockRenewalFailed', (jobIds) => {
    for (const id of jobIds) {
      host.log(`job ${id}: this worker's lock on it lapsed; the queue gives it to a worker again`);
      worker.cancelJob(id, 'lock lost');
    }
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

import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Executor,
  type ExecutorContext,
  emptyUsage,
  isTrialComplete,
  type RunEvent,
  type TrialRecord,
  type TrialSpec,
  type WorkerHost,
  type WorkerServeOptions,
} from '@longhaul/core';
import { type Job, Queue, QueueEvents } from 'bullmq';
import { connectionOf, failureOf, jobIdOf, type QueueOptions } from './options.js';
import { runWorker } from './worker.js';

/**
 * The coordinator's side: one BullMQ job per trial (keyed by run and trial id), then waits for
 * each trial's trial.json to hold a final status. A job that vanished (Redis lost it, or a worker
 * handed it back) is added again; one that failed every attempt is recorded with its fault class.
 */
export class QueueExecutor implements Executor {
  readonly remote = true;

  constructor(readonly options: QueueOptions) {}

  async execute(
    specs: TrialSpec[],
    _worker: unknown,
    stop: AbortSignal,
    context: ExecutorContext,
  ): Promise<Map<string, TrialRecord>> {
    const results = new Map<string, TrialRecord>();
    if (specs.length === 0) return results;
    const connection = connectionOf(this.options);
    const queue = new Queue<TrialSpec>(this.options.queue, { connection });
    const events = new QueueEvents(this.options.queue, { connection });
    const ours = new Set(specs.map(jobIdOf));
    let unreachable = false;
    const onError = (error: Error) => {
      if (unreachable) return;
      unreachable = true;
      context.emit({
        type: 'log',
        level: 'warn',
        message: `queue ${connection.url}: ${error.message}; waiting for it to come back`,
      });
    };
    queue.on('error', onError);
    events.on('error', onError);
    // Trials whose start this coordinator saw and whose end it has not seen yet.
    const unended = new Set<string>();
    events.on('progress', ({ jobId, data }) => {
      if (!ours.has(jobId) || !isRunEvent(data)) return;
      if (data.type === 'trial.start') unended.add(data.trialId);
      if (data.type === 'trial.end') unended.delete(data.trialId);
      context.emit(data);
    });
    const pending = new Set(specs);
    try {
      await queue.addBulk(specs.map((spec) => this.job(spec)));
      while (pending.size > 0 && !stop.aborted) {
        for (const spec of pending) {
          // The job first: a job is removed only after its trial.json is final, so a job missing
          // here with trial.json not final afterwards really is lost (not just finished).
          const job = await queue.getJob(jobIdOf(spec));
          const record = await context.readTrial(spec.id);
          if (record && isTrialComplete(record)) {
            results.set(spec.id, record);
            pending.delete(spec);
            continue;
          }
          if (!job) {
            await queue.add(this.job(spec).name, spec, this.job(spec).opts);
          } else if (await job.isFailed()) {
            // The job as it failed: the one read above may be from an earlier attempt, its
            // attempts and reason not yet those of the last failure.
            const failed = (await queue.getJob(jobIdOf(spec))) ?? job;
            results.set(spec.id, await this.recordFault(spec, failed, record, context));
            unended.delete(spec.id);
            pending.delete(spec);
          }
        }
        unreachable = false;
        if (pending.size > 0)
          await sleep(this.options.pollSeconds * 1000, undefined, { signal: stop }).catch(() => {});
      }
      if (stop.aborted) await this.withdraw(queue, [...pending]);
      // A worker writes trial.json before it sends the trial's last events: wait for them, so that
      // events.jsonl and the reporters see each trial end. They come within milliseconds; the
      // bound is for a worker that died in between, generous for one slowed by a busy machine.
      const deadline = Date.now() + Math.max(30_000, this.options.pollSeconds * 2_000);
      while (unended.size > 0 && !stop.aborted && Date.now() < deadline) await sleep(100);
    } finally {
      await events.close().catch(() => {});
      await queue.close().catch(() => {});
    }
    return results;
  }

  /** Workers of this queue, in this process (`longhaul worker`). */
  serve(host: WorkerHost, options: WorkerServeOptions): Promise<void> {
    return runWorker({ ...this.options, ...options, host });
  }

  private job(spec: TrialSpec) {
    return {
      name: 'trial',
      data: spec,
      opts: {
        jobId: jobIdOf(spec),
        attempts: this.options.attempts,
        backoff: { type: 'fixed', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: false,
      },
    };
  }

  /** A trial no worker could run: its record keeps the steps that did run and names the fault. */
  private async recordFault(
    spec: TrialSpec,
    job: Job,
    prior: TrialRecord | undefined,
    context: ExecutorContext,
  ): Promise<TrialRecord> {
    const { status, message } = failureOf(job.failedReason);
    // Tries that ended in a failure, and those whose worker vanished (see the worker's processor).
    const tries = Math.min(this.options.attempts, job.attemptsMade + job.stalledCounter);
    const error = `${message} (tried ${tries} time${tries === 1 ? '' : 's'})`;
    const record: TrialRecord = {
      id: spec.id,
      task: spec.task.id,
      condition: spec.condition.key,
      repeat: spec.repeat,
      durationMs: 0,
      usage: emptyUsage(),
      steps: [],
      scores: {},
      ...prior,
      status,
      error,
      endedAt: new Date().toISOString(),
    };
    await context.writeTrial(record);
    context.emit({ type: 'log', level: 'error', message: `trial ${spec.id}: ${error}`, trialId: spec.id });
    context.emit({
      type: 'trial.end',
      trialId: spec.id,
      status,
      usage: record.usage,
      durationMs: record.durationMs,
    });
    return record;
  }

  /** On stop: trials no worker took yet are taken off the queue (resume puts them back). */
  private async withdraw(queue: Queue<TrialSpec>, specs: TrialSpec[]): Promise<void> {
    for (const spec of specs) {
      const job = await queue.getJob(jobIdOf(spec)).catch(() => undefined);
      const state = await job?.getState().catch(() => undefined);
      if (job && (state === 'waiting' || state === 'delayed' || state === 'prioritized')) {
        await job.remove().catch(() => {});
      }
    }
  }
}

function isRunEvent(data: unknown): data is RunEvent {
  return typeof data === 'object' && data !== null && typeof (data as { type?: unknown }).type === 'string';
}

import { z } from 'zod';

export const queueOptions = z.strictObject({
  url: z
    .string()
    .regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL')
    .optional()
    .describe('The Redis server (default: $LONGHAUL_QUEUE, else redis://127.0.0.1:6379)'),
  queue: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, "a queue name may hold only letters, digits, '.', '_' and '-'")
    .default('longhaul-trials')
    .describe('The BullMQ queue trials go through; coordinator and workers must name the same'),
  attempts: z
    .int()
    .min(1)
    .default(3)
    .describe(
      'Times a trial is tried before it is recorded as a fault (a worker failing or vanishing counts)',
    ),
  lockSeconds: z
    .number()
    .positive()
    .default(30)
    .describe(
      "A worker's heartbeat period: a trial whose worker stops renewing it this long goes to another worker",
    ),
  pollSeconds: z
    .number()
    .positive()
    .default(2)
    .describe('How often the coordinator reads the run store and the queue for finished trials'),
});

export type QueueOptions = z.output<typeof queueOptions>;

/** The connection BullMQ makes (ioredis reconnects on its own; commands wait for it). */
export function connectionOf(options: Pick<QueueOptions, 'url'>) {
  return {
    url: options.url ?? process.env.LONGHAUL_QUEUE ?? 'redis://127.0.0.1:6379',
    maxRetriesPerRequest: null,
  };
}

/** One job per trial of a run: adding it twice is harmless. */
export function jobIdOf(spec: { runId: string; id: string }): string {
  return `${encodeURIComponent(spec.runId)}|${encodeURIComponent(spec.id)}`;
}

/** A worker fails a job with `<status>: <reason>`, so the coordinator records the fault's class. */
export function failureOf(reason: string | undefined): { status: `error:${string}`; message: string } {
  const match = /^error:([a-z_]+): ([\s\S]*)$/.exec(reason ?? '');
  if (match) return { status: `error:${match[1]}`, message: match[2]! };
  return { status: 'error:worker', message: reason || 'the job failed without a reason' };
}

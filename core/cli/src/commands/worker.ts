import type { Executor } from '@longhaul/core';
import { type Command, InvalidArgumentError } from 'commander';
import { installDirOption } from '../plugin-search.js';
import { reportingConfigErrors } from '../print-error.js';

function positive(label: string, integer: boolean) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`${label} must be a positive ${integer ? 'integer' : 'number'}`);
    }
    return n;
  };
}

interface WorkerFlags {
  queue?: string;
  queueName?: string;
  concurrency: number;
  lockSeconds?: number;
  plugins: string;
  executor: string;
}

/**
 * `longhaul worker`: serves the trials a coordinator's executor (by default `queue`) hands out,
 * with this machine's plugins, environment and gateway. The executor plugin is found by id among
 * the installed plugins; the CLI imports none.
 */
export function register(program: Command): void {
  program
    .command('worker')
    .description('Run trials a coordinator put on a queue (`executor: queue`), into the shared run store')
    .option('--queue <url>', 'the Redis server (default: $LONGHAUL_QUEUE, else redis://127.0.0.1:6379)')
    .option(
      '--queue-name <name>',
      "the queue (the experiment's executor option `queue`; default: longhaul-trials)",
    )
    .option('--concurrency <n>', 'trials at once', positive('concurrency', true), 1)
    .option(
      '--lock-seconds <s>',
      'heartbeat period: a trial of a worker silent this long goes to another',
      positive('lock-seconds', false),
    )
    .option(
      '--plugins <dir>',
      'where plugins are installed (node_modules are searched from here up)',
      process.cwd(),
    )
    .option('--executor <id>', 'the executor plugin whose trials to serve', 'queue')
    .action(async (flags: WorkerFlags) => {
      const [{ PluginRegistry, standalonePlugin, TrialHost }, { openGateway }] = await Promise.all([
        import('@longhaul/core'),
        import('../run-gateway.js'),
      ]);
      const registry = await reportingConfigErrors(async () =>
        (await PluginRegistry.discover({ cwd: flags.plugins, ...installDirOption() })).load([
          { kind: 'executor', id: flags.executor },
        ]),
      );
      const options = {
        ...(flags.queue === undefined ? {} : { url: flags.queue }),
        ...(flags.queueName === undefined ? {} : { queue: flags.queueName }),
        ...(flags.lockSeconds === undefined ? {} : { lockSeconds: flags.lockSeconds }),
      };
      const executor = await reportingConfigErrors(async () =>
        standalonePlugin<Executor>(registry, 'executor', flags.executor, options),
      );
      if (!executor.serve) {
        process.stderr.write(
          `error: executor '${flags.executor}' runs trials in the coordinator; it has no workers\n`,
        );
        process.exitCode = 2;
        return;
      }
      const log = (message: string) => process.stderr.write(`${new Date().toISOString()} ${message}\n`);
      const host = new TrialHost({ cwd: flags.plugins, openGateway, log });
      const stop = new AbortController();
      const abort = new AbortController();
      let signals = 0;
      const onSignal = (signal: string) => {
        signals++;
        if (signals === 1) {
          log(
            `${signal}: taking no new trial; running trials hand back after their current turn (again to abort them)`,
          );
          stop.abort();
        } else if (signals === 2) {
          log(`${signal}: aborting running turns`);
          abort.abort();
        } else process.exit(130);
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      try {
        await executor.serve(host, {
          concurrency: flags.concurrency,
          stop: stop.signal,
          abort: abort.signal,
        });
      } finally {
        await host.close();
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      }
      log('worker: stopped');
    });
}

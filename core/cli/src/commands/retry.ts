import { defaultRetryStatuses } from '@longhaul/core/light';
import { type Command, InvalidArgumentError } from 'commander';
import { reportingConfigErrors } from '../print-error.js';
import { concurrencyOption, forceOption, graceOption, runExitCodes, runModules } from './run.js';

const plainStatuses = ['ok', 'failed', 'timeout', 'budget', 'error'];

/** `--status error,timeout`: trial statuses, `error` for every `error:<class>`. */
function statusList(value: string): string[] {
  const statuses = value
    .split(',')
    .map((status) => status.trim())
    .filter(Boolean);
  const unknown = statuses.filter(
    (status) => !plainStatuses.includes(status) && !/^error:[\w-]+$/.test(status),
  );
  if (statuses.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(
      `${unknown.length > 0 ? `unknown status '${unknown[0]}'; ` : ''}give statuses, comma-separated: ${plainStatuses.join(', ')} or error:<class>`,
    );
  }
  return statuses;
}

/** `longhaul retry <run-dir>`: runs again the trials that ended with the given statuses. */
export function register(program: Command): void {
  program
    .command('retry')
    .description(
      'Run again the trials of a run that ended with the given statuses; each earlier attempt is kept under trials/<id>/attempts/<n>/',
    )
    .argument('<run-dir>', 'the run directory')
    .option(
      '--status <statuses>',
      `statuses to retry, comma-separated: ${plainStatuses.join(', ')} (every error:<class>) or one error:<class>`,
      statusList,
      defaultRetryStatuses,
    )
    .option(...concurrencyOption)
    .option(...graceOption)
    .option(...forceOption)
    .addHelpText('after', runExitCodes)
    .action(
      async (
        runDir: string,
        options: { status: string[]; concurrency?: number; grace: number; force: boolean },
      ) => {
        const { core, driveRun, openGateway } = await runModules();
        process.exitCode = await reportingConfigErrors(() =>
          driveRun(
            (hooks) =>
              core.retryRun(runDir, {
                ...hooks,
                openGateway,
                concurrency: options.concurrency,
                force: options.force,
                statuses: options.status,
                onRetry: (retried) => {
                  if (retried.length === 0) {
                    process.stderr.write(
                      `retry: no trial ended with ${options.status.join(', ')}; nothing to run again\n`,
                    );
                    return;
                  }
                  const which = retried.map(({ id, attempt }) => `${id} (attempt ${attempt} kept)`);
                  process.stderr.write(
                    `retry: ${retried.length} trial${retried.length === 1 ? '' : 's'} ended with ${options.status.join(', ')}${which.length > 0 ? `: ${which.join(', ')}` : ''}\n`,
                  );
                },
              }),
            { graceSeconds: options.grace },
          ),
        );
      },
    );
}

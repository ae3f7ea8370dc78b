import type { Command } from 'commander';
import { reportingConfigErrors } from '../print-error.js';
import { concurrencyOption, forceOption, graceOption, runExitCodes, runModules } from './run.js';

/** `longhaul resume <run-dir>`: finishes an interrupted run without re-running complete steps. */
export function register(program: Command): void {
  program
    .command('resume')
    .description('Continue an interrupted run; complete steps are never run again')
    .argument('<run-dir>', 'the run directory')
    .option(...concurrencyOption)
    .option(...graceOption)
    .option(...forceOption)
    .addHelpText('after', runExitCodes)
    .action(async (runDir: string, options: { concurrency?: number; grace: number; force: boolean }) => {
      const { core, driveRun, openGateway } = await runModules();
      process.exitCode = await reportingConfigErrors(() =>
        driveRun(
          (hooks) =>
            core.resumeRun(runDir, {
              ...hooks,
              openGateway,
              concurrency: options.concurrency,
              force: options.force,
            }),
          {
            graceSeconds: options.grace,
          },
        ),
      );
    });
}

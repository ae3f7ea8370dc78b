import { resumeRun } from '@longhaul/core';
import type { Command } from 'commander';
import { reportingConfigErrors } from '../print-error.js';
import { driveRun } from '../progress/drive-run.js';
import { concurrencyOption, graceOption, openGateway } from './run.js';

/** `longhaul resume <run-dir>`: finishes an interrupted run without re-running complete steps. */
export function register(program: Command): void {
  program
    .command('resume')
    .description('Continue an interrupted run; complete steps are never run again')
    .argument('<run-dir>', 'the run directory')
    .option(...concurrencyOption)
    .option(...graceOption)
    .action(async (runDir: string, options: { concurrency?: number; grace: number }) => {
      process.exitCode = await reportingConfigErrors(() =>
        driveRun((hooks) => resumeRun(runDir, { ...hooks, openGateway, concurrency: options.concurrency }), {
          graceSeconds: options.grace,
        }),
      );
    });
}

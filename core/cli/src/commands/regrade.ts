import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RegradeResult } from '@longhaul/core';
import { ConfigError } from '@longhaul/core/light';
import type { Command } from 'commander';
import { collect, reportingConfigErrors } from '../print-error.js';
import { printWarnings } from '../print-warnings.js';

const shown = (value: number | boolean | null) =>
  typeof value === 'number' ? String(Math.round(value * 1000) / 1000) : String(value);

/**
 * `longhaul regrade RUN [--scorers …] [--set …]`: scores every complete step of a run again from
 * its snapshot, with the scorers as now configured; runs no agent; keeps the earlier scores.
 */
export function register(program: Command): void {
  program
    .command('regrade')
    .description('Score every complete step of a run again from its snapshot; no agent runs')
    .argument('<run-dir>', 'the run directory')
    .option(
      '--scorers <yaml>',
      "the scorers to use instead of the experiment's (a YAML list, as in the experiment)",
    )
    .option(
      '--set <key=value>',
      "override a key of the run's experiment (value is YAML; repeatable)",
      collect,
      [],
    )
    .option(
      '--id <id>',
      "the regrade's name (default: continue an unfinished regrade with the same scorers, or a new one)",
    )
    .action(async (runDir: string, options: { scorers?: string; set: string[]; id?: string }) => {
      const [{ regradeRun }, { loadExperimentFile }, { openGateway }] = await Promise.all([
        import('@longhaul/core'),
        import('../load-experiment-file.js'),
        import('../run-gateway.js'),
      ]);
      const dir = resolve(runDir);
      const file = join(dir, 'experiment.yaml');
      const result = await reportingConfigErrors(async (): Promise<RegradeResult> => {
        if (
          !(await access(file).then(
            () => true,
            () => false,
          ))
        ) {
          throw new ConfigError([{ file: dir, message: 'not a run directory (no experiment.yaml)' }]);
        }
        const set = [
          ...(options.scorers === undefined ? [] : [`scorers=${options.scorers}`]),
          ...options.set,
        ];
        const experiment = await loadExperimentFile(file, set);
        printWarnings(experiment.warnings);
        const log = {
          info: (message: string) => process.stderr.write(`${message}\n`),
          warn: (message: string) => process.stderr.write(`warning: ${message}\n`),
          error: (message: string) => process.stderr.write(`error: ${message}\n`),
        };
        // Judges and other scorers that call models need the gateway; no agent is run through it.
        const gateway =
          experiment.config.models === undefined
            ? undefined
            : await openGateway({
                run: { runId: 'regrade', runDir: dir, baseDir: experiment.baseDir },
                models: experiment.config.models,
                prices: experiment.config.prices,
                file: experiment.file,
                log,
              });
        try {
          return await regradeRun(experiment, dir, {
            id: options.id,
            gateway,
            onLog: (level, message) => log[level](message),
            onStep: (step, again) => {
              const scores = Object.entries(step.scores)
                .map(([key, value]) => `${key}=${shown(value)}`)
                .join(' ');
              process.stdout.write(
                `${step.trialId}: step ${step.index + 1} ${step.step} ${step.status}${again ? ' (done before)' : ''} ${scores}\n`,
              );
            },
          });
        } finally {
          await gateway?.close();
        }
      });
      process.stdout.write(
        `regrade ${result.id}: ${result.steps.length} steps (${result.resumed} from an earlier attempt) in ${join(result.runDir, 'regrades', result.id)}\n`,
      );
    });
}

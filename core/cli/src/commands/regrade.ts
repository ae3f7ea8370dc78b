import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RegradeResult } from '@longhaul/core';
import { ConfigError } from '@longhaul/core/light';
import type { Command } from 'commander';
import { terminalWidth } from '../fit-columns.js';
import { collect, reportingConfigErrors } from '../print-error.js';
import { printWarnings } from '../print-warnings.js';
import { regradeSummary, stepLine } from '../regrade-output.js';

/**
 * `longhaul regrade RUN [--scorers …] [--set …] [--json]`: scores every complete step of a run
 * again from its snapshot, with the scorers as now configured; runs no agent; keeps the earlier
 * scores. Prints each step with the scores that changed, then a table of them per condition.
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
      '--add <yaml>',
      "scorers to add to the run (a YAML list or one scorer): only they score, the run's scores stay as they are",
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
    .option(
      '--json',
      'print the regrade as JSON (every step with its scores before and after) instead of lines',
    )
    .action(
      async (
        runDir: string,
        options: { scorers?: string; add?: string; set: string[]; id?: string; json?: boolean },
      ) => {
        const [{ regradeRun }, { loadExperimentFile }, { openGateway }] = await Promise.all([
          import('@longhaul/core'),
          import('../load-experiment-file.js'),
          import('../run-gateway.js'),
        ]);
        const dir = resolve(runDir);
        let trial: string | undefined;
        let stepWidth = 0;
        /** The regrade's scorers: only their scores can have changed. */
        let labels: string[] = [];
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
          if (options.add !== undefined && options.scorers !== undefined)
            throw new ConfigError([
              { file: dir, message: '--add and --scorers both choose the scorers: give one of them' },
            ]);
          const scorers = options.add ?? options.scorers;
          const set = [
            ...(scorers === undefined ? [] : [`scorers=${scorers}`]),
            // Only the added scorers score: the tamper signals every run has are not given again.
            ...(options.add === undefined ? [] : ['tamperSignals=false']),
            // A regrade runs no reporter: their options (the summary's columns) are not checked
            // against scorers the regrade leaves out.
            'reporters=[]',
            ...options.set,
          ];
          const experiment = await loadExperimentFile(file, set);
          printWarnings(experiment.warnings);
          labels = [...new Set(experiment.trials.flatMap((spec) => spec.scorers.map((ref) => ref.label)))];
          stepWidth = Math.max(
            0,
            ...experiment.trials.flatMap((spec) => spec.task.steps.map((step) => step.id.length)),
          );
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
                if (options.json) return;
                // Steps come trial by trial: the trial's id heads its steps.
                if (step.trialId !== trial) process.stdout.write(`${step.trialId}\n`);
                trial = step.trialId;
                process.stdout.write(
                  `${stepLine(step, again, { width: terminalWidth(), stepWidth, scorers: labels })}\n`,
                );
              },
            });
          } finally {
            await gateway?.close();
          }
        });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          return;
        }
        process.stdout.write(`\n${regradeSummary(result.steps, terminalWidth(), labels)}\n`);
        process.stdout.write(
          `regrade ${result.id}: ${result.steps.length} steps (${result.resumed} from an earlier attempt) in ${join(result.runDir, 'regrades', result.id)}\n`,
        );
      },
    );
}

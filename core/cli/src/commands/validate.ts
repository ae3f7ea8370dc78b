import type { Command } from 'commander';
import { collect, reportingConfigErrors } from '../print-error.js';
import { printWarnings } from '../print-warnings.js';
import { pythonShimWarning } from '../python-shim.js';
import { modelOption } from './run.js';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * `longhaul validate <experiment>`: checks everything `run` checks before it starts (tasks, plugins,
 * plans, models, prices, key variables, images) without running anything or writing a run.
 */
export function register(program: Command): void {
  program
    .command('validate')
    .description('Check an experiment file and its tasks without running anything')
    .argument('<experiment>', 'experiment YAML file')
    .option(...modelOption)
    .option('--set <key=value>', 'override a key before validation (value is YAML; repeatable)', collect, [])
    .option('--resolved', 'print the experiment as a run would store it (defaults filled in)', false)
    .action(async (file: string, options: { set: string[]; resolved: boolean; model?: string }) => {
      const [{ checkExperiment }, { loadExperimentFile }] = await Promise.all([
        import('@longhaul/core'),
        import('../load-experiment-file.js'),
      ]);
      const experiment = await reportingConfigErrors(() =>
        loadExperimentFile(file, options.set, options.model === undefined ? {} : { model: options.model }),
      );
      printWarnings(experiment.warnings);
      const shim = await pythonShimWarning();
      if (shim) printWarnings([shim]);
      await reportingConfigErrors(() => checkExperiment(experiment));
      if (options.resolved) {
        process.stdout.write(experiment.resolved);
        return;
      }
      const { tasks, conditions, trials } = experiment;
      process.stdout.write(
        `${file}: valid: ${plural(tasks.length, 'task')}, ${plural(conditions.length, 'condition')}, ${plural(trials.length, 'trial')}\n`,
      );
      // What the environments (and any other plugin) guarantee on this host: isolation and limits.
      for (const line of experiment.guarantees) process.stdout.write(`${line}\n`);
    });
}

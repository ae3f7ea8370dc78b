import { loadExperiment } from '@longhaul/core';
import type { Command } from 'commander';
import { installDirOption } from '../plugin-search.js';
import { collect, reportingConfigErrors } from '../print-error.js';
import { printWarnings } from '../print-warnings.js';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `longhaul validate <experiment>`: checks an experiment completely (tasks included) without running it. */
export function register(program: Command): void {
  program
    .command('validate')
    .description('Check an experiment file and its tasks without running anything')
    .argument('<experiment>', 'experiment YAML file')
    .option('--set <key=value>', 'override a key before validation (value is YAML; repeatable)', collect, [])
    .option('--resolved', 'print the experiment as a run would store it (defaults filled in)', false)
    .action(async (file: string, options: { set: string[]; resolved: boolean }) => {
      const experiment = await reportingConfigErrors(() =>
        loadExperiment(file, { set: options.set, ...installDirOption() }),
      );
      printWarnings(experiment.warnings);
      if (options.resolved) {
        process.stdout.write(experiment.resolved);
        return;
      }
      const { tasks, conditions, trials } = experiment;
      process.stdout.write(
        `${file}: valid: ${plural(tasks.length, 'task')}, ${plural(conditions.length, 'condition')}, ${plural(trials.length, 'trial')}\n`,
      );
    });
}

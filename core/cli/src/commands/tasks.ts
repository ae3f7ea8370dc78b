import { formatColumns } from '@longhaul/core/light';
import type { Command } from 'commander';
import { installDirOption } from '../plugin-search.js';
import { collect, reportingConfigErrors } from '../print-error.js';

/** `longhaul tasks <experiment>`: the tasks an experiment would run. */
export function register(program: Command): void {
  program
    .command('tasks')
    .description("List the tasks an experiment runs (after its 'tasks:' filter)")
    .argument('<experiment>', 'experiment YAML file')
    .option('--set <key=value>', 'override a key before validation (value is YAML; repeatable)', collect, [])
    .action(async (file: string, options: { set: string[] }) => {
      const { loadExperiment } = await import('@longhaul/core');
      const experiment = await reportingConfigErrors(() =>
        loadExperiment(file, { set: options.set, ...installDirOption() }),
      );
      const rows = experiment.tasks.map((task) => [
        task.id,
        String(task.steps.length),
        task.source,
        task.title,
      ]);
      process.stdout.write(`${formatColumns([['TASK', 'STEPS', 'SOURCE', 'TITLE'], ...rows])}\n`);
    });
}

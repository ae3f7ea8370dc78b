import { formatIssue } from '@longhaul/core/light';
import type { Command } from 'commander';
import { discoverPlugins } from '../plugin-search.js';
import { reportingConfigErrors } from '../print-error.js';

/**
 * `longhaul schema [--experiment FILE]`: the JSON Schema of experiment files, for editors; with
 * an experiment, its own plugins' options too.
 */
export function register(program: Command): void {
  program
    .command('schema')
    .description(
      "Print the JSON Schema of experiment files, with every installed plugin's options (point your editor's YAML schema setting at it)",
    )
    .option(
      '--experiment <file>',
      "with the plugins this experiment loads: its project's packages and those its plugins: names",
    )
    .action(async (options: { experiment?: string }) => {
      const [{ experimentJsonSchema }, { modelsConfigSchema, pricesConfigSchema }] = await Promise.all([
        import('@longhaul/core'),
        import('@longhaul/gateway'),
      ]);
      const registry = await reportingConfigErrors(async () =>
        (await discoverPlugins(options.experiment)).load('all'),
      );
      process.stdout.write(
        `${JSON.stringify(experimentJsonSchema(registry, { models: modelsConfigSchema, prices: pricesConfigSchema }), null, 2)}\n`,
      );
      for (const problem of registry.problems()) process.stderr.write(`left out: ${formatIssue(problem)}\n`);
    });
}

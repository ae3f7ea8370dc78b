import { formatIssue } from '@longhaul/core/light';
import type { Command } from 'commander';
import { discoverPlugins } from '../plugin-search.js';
import { reportingConfigErrors } from '../print-error.js';

/** `longhaul schema`: the JSON Schema of experiment files, for editors. */
export function register(program: Command): void {
  program
    .command('schema')
    .description(
      "Print the JSON Schema of experiment files, with every installed plugin's options (point your editor's YAML schema setting at it)",
    )
    .action(async () => {
      const [{ experimentJsonSchema }, { modelsConfigSchema, pricesConfigSchema }] = await Promise.all([
        import('@longhaul/core'),
        import('@longhaul/gateway'),
      ]);
      const registry = await reportingConfigErrors(async () => (await discoverPlugins()).load('all'));
      process.stdout.write(
        `${JSON.stringify(experimentJsonSchema(registry, { models: modelsConfigSchema, prices: pricesConfigSchema }), null, 2)}\n`,
      );
      for (const problem of registry.problems()) process.stderr.write(`left out: ${formatIssue(problem)}\n`);
    });
}

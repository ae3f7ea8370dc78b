import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { badInputExitCode } from '@longhaul/core/light';
import { type Command, CommanderError, Option } from 'commander';

const formats = ['csv', 'jsonl', 'parquet'] as const;

function badInput(message: string): never {
  process.stderr.write(`${message}\n`);
  throw new CommanderError(badInputExitCode, 'longhaul.badInput', message);
}

/**
 * `longhaul export RUN… [--format csv|jsonl|parquet] [--out FILE]`: every value of the runs as one
 * tidy table (run, condition, harness, model, task, trial, repeat, step, metric, value, outcome),
 * for pandas, R or DuckDB.
 */
export function register(program: Command): void {
  program
    .command('export')
    .description(
      'Write the scores of one or more runs as one tidy table (a row per run, trial, step and metric) in CSV, JSON Lines or Parquet',
    )
    .argument('<run-dir...>', 'run directories; their rows go into one table, told apart by the run column')
    .addOption(new Option('--format <format>', 'the file format').choices(formats).default('csv'))
    .option('--out <file>', 'where the table goes (default: standard output for csv and jsonl)')
    .action(async (runDirs: string[], options: { format: (typeof formats)[number]; out?: string }) => {
      for (const dir of runDirs) {
        const found = await stat(join(dir, 'trials')).catch(() => undefined);
        const events = await stat(join(dir, 'events.jsonl')).catch(() => undefined);
        if (!found?.isDirectory() && !events)
          badInput(`${dir}: not a run directory (no trials/ and no events.jsonl)`);
      }
      if (options.format === 'parquet' && options.out === undefined)
        badInput('export --format parquet: give --out FILE (Parquet is binary, not for a terminal)');
      const [{ writeFileAtomic }, { formatRows, loadRun, tidyRows }] = await Promise.all([
        import('@longhaul/core'),
        import('@longhaul/report'),
      ]);
      const rows = [];
      for (const dir of runDirs) rows.push(...(await tidyRows(await loadRun(resolve(dir)))));
      const data = formatRows(rows, options.format);
      if (options.out === undefined) {
        process.stdout.write(data);
        return;
      }
      const out = resolve(options.out);
      await writeFileAtomic(out, data);
      process.stderr.write(`export: ${out} (${rows.length} rows, ${options.format})\n`);
    });
}

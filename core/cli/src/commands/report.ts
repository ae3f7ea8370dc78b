import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { badInputExitCode } from '@longhaul/core/light';
import { type Command, CommanderError } from 'commander';

/** `longhaul report RUN… [--out FILE]`: one self-contained HTML file of one or more runs. */
export function register(program: Command): void {
  program
    .command('report')
    .description('Write an HTML report (tables, plots, trials and steps) of one or more runs')
    .argument('<run-dir...>', 'run directories; several are shown side by side with deltas')
    .option('--out <file>', 'where the HTML goes (default: report.html in the first run directory)')
    .action(async (runDirs: string[], options: { out?: string }) => {
      for (const dir of runDirs) {
        const found = await stat(join(dir, 'trials')).catch(() => undefined);
        const events = await stat(join(dir, 'events.jsonl')).catch(() => undefined);
        if (!found?.isDirectory() && !events) {
          process.stderr.write(`${dir}: not a run directory (no trials/ and no events.jsonl)\n`);
          throw new CommanderError(badInputExitCode, 'longhaul.badInput', `${dir}: not a run directory`);
        }
      }
      const [{ writeFileAtomic }, { buildReport }] = await Promise.all([
        import('@longhaul/core'),
        import('@longhaul/report'),
      ]);
      const started = Date.now();
      const html = await buildReport(runDirs.map((dir) => resolve(dir)));
      const out = resolve(options.out ?? join(runDirs[0]!, 'report.html'));
      await writeFileAtomic(out, html);
      const megabytes = (Buffer.byteLength(html) / 1_000_000).toFixed(1);
      process.stdout.write(
        `report: ${out} (${megabytes} MB, ${((Date.now() - started) / 1000).toFixed(1)}s)\n`,
      );
    });
}

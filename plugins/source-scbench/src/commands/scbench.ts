import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type CommandContext,
  defineCommand,
  formatColumns,
  loadExperiment,
  runCommandLine,
} from '@longhaul/core';
import { Command } from 'commander';
import { runReferenceCheck } from '../check.js';

const description =
  'SlopCodeBench: check that every selected checkpoint can be solved where the experiment runs';

/** `longhaul scbench check EXPERIMENT`: runs each selected checkpoint's reference before money is spent. */
export const scbenchCommand = defineCommand({
  name: 'scbench',
  description,
  run: (args, context) =>
    runCommandLine(
      new Command('longhaul scbench').description(description),
      (scbench) => define(scbench, context),
      args,
      context,
    ),
});

const collect = (value: string, previous: string[]) => [...previous, value];

function define(program: Command, context: CommandContext): void {
  program
    .command('check')
    .description(
      "Run the reference solution of every checkpoint the experiment selects, in the experiment's environment, and say which cannot be solved there and why (exit 1 when one cannot)",
    )
    .argument('<experiment>', 'an experiment whose source is scbench')
    .option('--set <key=value>', 'override a key of the experiment (value is YAML; repeatable)', collect, [])
    .option(
      '--run-dir <dir>',
      'keep the check and its run there (default: a temporary folder, removed after)',
    )
    .option('--json', 'print the result as JSON')
    .action(async (file: string, flags: { set: string[]; runDir?: string; json?: boolean }) => {
      const installDir = context.installDir === undefined ? {} : { installDir: context.installDir };
      const experiment = await loadExperiment(resolve(context.cwd, file), {
        cwd: context.cwd,
        set: flags.set,
        ...installDir,
      });
      for (const warning of experiment.warnings) context.stderr.write(`warning: ${warning}\n`);
      const runDir = flags.runDir
        ? resolve(context.cwd, flags.runDir)
        : await mkdtemp(join(tmpdir(), 'longhaul-scbench-check-'));
      try {
        const found = await runReferenceCheck(experiment, runDir, context);
        if (flags.json) context.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
        else {
          const rows = found.map((row) => [
            row.task,
            row.checkpoint,
            row.verdict,
            row.total === undefined ? '–' : `${row.passed}/${row.total}`,
            row.why ?? '',
          ]);
          context.stdout.write(
            `${formatColumns([['TASK', 'CHECKPOINT', 'REFERENCE', 'PASSED', 'WHY'], ...rows])}\n`,
          );
          const bad = found.filter((row) => row.verdict !== 'solved');
          context.stdout.write(
            `${found.length - bad.length} of ${found.length} checkpoints can be solved here${bad.length ? `; ${bad.length} cannot (above)` : ''}\n`,
          );
        }
        if (found.some((row) => row.verdict !== 'solved')) process.exitCode = 1;
      } finally {
        if (!flags.runDir) await rm(runDir, { recursive: true, force: true });
      }
    });
}

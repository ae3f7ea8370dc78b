import { type Command, InvalidArgumentError } from 'commander';
import { collect, reportingConfigErrors } from '../print-error.js';
import { printWarnings } from '../print-warnings.js';
import { pythonShimWarning } from '../python-shim.js';

function positive(label: string, integer = false) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`${label} must be a positive ${integer ? 'integer' : 'number'}`);
    }
    return n;
  };
}

/** `--tasks a,b*`: task ids or globs, comma-separated. */
function taskPatterns(value: string): string[] {
  const patterns = value
    .split(',')
    .map((pattern) => pattern.trim())
    .filter(Boolean);
  if (patterns.length === 0) throw new InvalidArgumentError('give task ids or globs, comma-separated');
  return patterns;
}

/**
 * What running trials needs (the kernel, the progress view, the gateway), imported when a command
 * runs rather than at start: `longhaul --help` must not load the kernel.
 */
export async function runModules() {
  const [core, { driveRun }, { openGateway }] = await Promise.all([
    import('@longhaul/core'),
    import('../progress/drive-run.js'),
    import('../run-gateway.js'),
  ]);
  return { core, driveRun, openGateway };
}

export const concurrencyOption = [
  '--concurrency <n>',
  'trials at once (overrides the experiment)',
  positive('concurrency', true),
] as const;

export const forceOption = [
  '--force',
  'take the run over even if writer.lock names a process on another host (or cannot be read)',
  false,
] as const;

export const graceOption = [
  '--grace <seconds>',
  'after Ctrl-C, how long running turns may finish before they are aborted',
  positive('grace'),
  30,
] as const;

/** What `run`, `resume` and `retry` exit with, shown under their --help. */
export const runExitCodes = `
Exit codes:
  0    every trial finished (ok, failed, timeout or budget) and was reported
  1    a reporter or experiment scorer failed
  2    bad input: an experiment, --set, task file or run directory that does not validate
  3    some trial ended error:<class> or cancelled; a line on stderr says how many and why,
       and rates are over the scored steps only
  130  stopped with Ctrl-C or SIGTERM; continue with longhaul resume <run-dir>
`;

/**
 * `--model PROVIDER/NAME`, as Inspect writes it; shared by `run` and `validate`. Its help names
 * each provider's key variable, which a user must export.
 */
export const modelOption = [
  '--model <provider/name>',
  'the model of every harness that takes one and names none: anthropic/NAME (key in ANTHROPIC_API_KEY), ' +
    "openai/NAME (OPENAI_API_KEY), oracle (the gateway's oracle, offline) or replay/RUN_DIR (a recording, offline)",
] as const;

/** `longhaul run <experiment>`: runs every trial of an experiment into a new run directory. */
export function register(program: Command): void {
  program
    .command('run')
    .description('Run an experiment: every trial, scored, into a run directory')
    .argument('<experiment>', 'experiment YAML file')
    .option('--run-dir <dir>', 'write the run into exactly this directory (default: runs/<name>-<time>)')
    .option(...concurrencyOption)
    .option(...modelOption)
    .option('--set <key=value>', 'override a key before validation (value is YAML; repeatable)', collect, [])
    .option(
      '--tasks <patterns>',
      "run these tasks instead of the experiment's tasks: ids or globs, comma-separated ('word*,quire')",
      taskPatterns,
    )
    .option(
      '--limit <n>',
      'run only n trials of the plan, taken in turn from each condition',
      positive('limit', true),
    )
    .option('--executor <id>', 'where trials run: an executor plugin (same as --set executor=<id>)')
    .option(...graceOption)
    .option(...forceOption)
    .addHelpText('after', runExitCodes)
    .action(
      async (
        file: string,
        options: {
          runDir?: string;
          concurrency?: number;
          set: string[];
          tasks?: string[];
          limit?: number;
          executor?: string;
          model?: string;
          grace: number;
          force: boolean;
        },
      ) => {
        const [{ core, driveRun, openGateway }, { loadExperimentFile }] = await Promise.all([
          runModules(),
          import('../load-experiment-file.js'),
        ]);
        const set =
          options.executor === undefined ? options.set : [`executor=${options.executor}`, ...options.set];
        const experiment = await reportingConfigErrors(() =>
          loadExperimentFile(file, set, {
            tasks: options.tasks,
            trialLimit: options.limit,
            ...(options.model === undefined ? {} : { model: options.model }),
          }),
        );
        printWarnings(experiment.warnings);
        const shim = await pythonShimWarning();
        if (shim) printWarnings([shim]);
        process.exitCode = await reportingConfigErrors(() =>
          driveRun(
            (hooks) =>
              core.startRun(experiment, {
                ...hooks,
                openGateway,
                runDir: options.runDir,
                concurrency: options.concurrency,
                force: options.force,
              }),
            { graceSeconds: options.grace },
          ),
        );
      },
    );
}

import { Command, CommanderError } from 'commander';
import * as exportRows from './commands/export.js';
import * as metrics from './commands/metrics.js';
import * as newPlugin from './commands/new.js';
import * as plugins from './commands/plugins.js';
import * as regrade from './commands/regrade.js';
import * as report from './commands/report.js';
import * as resume from './commands/resume.js';
import * as retry from './commands/retry.js';
import * as run from './commands/run.js';
import * as schema from './commands/schema.js';
import * as tasks from './commands/tasks.js';
import * as validate from './commands/validate.js';
import * as view from './commands/view.js';
import * as worker from './commands/worker.js';
import { registerContributedCommands } from './contributed-commands.js';
import { pluginSearch } from './plugin-search.js';
import { cliVersion } from './version.js';

/**
 * Each command lives in its own file under commands/ and exports `register(program)`. Add new
 * commands to this list. A command file imports at its top only what registering needs
 * (commander, `@longhaul/core/light`); its action imports the rest (`await import('@longhaul/core')`),
 * so `--help` loads no kernel (test/startup-imports.test.ts checks).
 */
const commands: { register(program: Command): void }[] = [
  run,
  resume,
  retry,
  validate,
  schema,
  plugins,
  tasks,
  report,
  exportRows,
  view,
  regrade,
  metrics,
  worker,
  newPlugin,
];

export interface MainOptions {
  /** Where longhaul is installed, for plugin discovery; null looks only where the command runs. */
  installDir?: string | null;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  pluginSearch.installDir = options.installDir;
  const program = new Command('longhaul')
    .description('Evaluate coding agents on long-horizon, iterative work')
    .version(cliVersion, '--version', 'print the version of longhaul')
    .exitOverride()
    .showSuggestionAfterError();
  for (const command of commands) command.register(program);
  // Contributed commands are looked for (a scan of node_modules) only when a built-in one is not named.
  if (!program.commands.some((command) => command.name() === argv[0]))
    await registerContributedCommands(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    throw error;
  }
}

import type { ModelGateway } from './gateway.js';

/** A model gateway a command opened for its own model calls; `close` stops it. */
export interface CommandGateway extends ModelGateway {
  close(): Promise<void>;
}

/** Where a contributed command writes, the directory it was run from, and what the CLI lends it. */
export interface CommandContext {
  cwd: string;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /**
   * Where plugin discovery looks besides `cwd` and an experiment's project (pass it on to
   * `loadExperiment`): undefined is beside longhaul's install, null is nowhere else.
   */
  installDir?: string | null;
  /**
   * Opens a model gateway over `models` (an experiment's `models:` mapping), so a command can call
   * a model the way a run's plugins do; relative paths in it (recordings) start from `baseDir`,
   * and errors name `configFile`. Bad config rejects with a ConfigError.
   */
  openGateway(models: unknown, options: { baseDir: string; configFile?: string }): Promise<CommandGateway>;
}

/**
 * A CLI subcommand a package adds: `longhaul <name> ...`. The package declares it in its
 * package.json (`"longhaul": {"commands": [{"name", "description"}]}`, so `longhaul --help` lists
 * it without importing anything) and default-exports the definitions (one or an array) from its
 * `"./commands"` export, which is imported only when the command runs. The command parses its own
 * arguments (everything after its name, `--help` included); `runCommandLine` does that with a
 * commander program.
 */
export interface CommandDefinition {
  name: string;
  description: string;
  /**
   * Runs the command; resolves to the process exit code. A ConfigError it throws is printed one
   * issue per line (`file:line:column: key: message`) and exits 2.
   */
  run(args: string[], context: CommandContext): Promise<number>;
}

export function defineCommand(definition: CommandDefinition): CommandDefinition {
  return definition;
}

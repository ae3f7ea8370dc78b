import { type ConfigError, formatIssue, isConfigError } from '../config/config-error.js';
import type { CommandContext, CommandDefinition } from '../contracts/command.js';

/** Exit code for bad input: an experiment, task file or option that does not validate. */
export const badInputExitCode = 2;

/** A ConfigError as the CLI prints it: one issue a line, then how many there are. */
export function configErrorText(error: ConfigError): string {
  const count = error.issues.length;
  return `${error.issues.map(formatIssue).join('\n')}\n${count} problem${count === 1 ? '' : 's'} found\n`;
}

/** Runs a contributed command as `longhaul` does: a ConfigError it throws is printed and exits 2. */
export async function runCommand(
  definition: CommandDefinition,
  args: string[],
  context: CommandContext,
): Promise<number> {
  try {
    return await definition.run(args, context);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    context.stderr.write(configErrorText(error));
    return badInputExitCode;
  }
}

/**
 * The parts of a commander `Command` that runCommandLine uses; commander itself stays the
 * command package's own dependency.
 */
export interface CommandLineProgram {
  exitOverride(): unknown;
  configureOutput(output: { writeOut(text: string): void; writeErr(text: string): void }): unknown;
  parseAsync(argv: readonly string[], options: { from: 'user' }): Promise<unknown>;
}

/**
 * Parses a contributed command's arguments with a commander program and runs its action: the
 * program writes to the context's streams, `--help` and usage errors return commander's exit
 * code instead of exiting, and the exit code is what the action left in `process.exitCode`
 * (0 when it set none). `define` adds the subcommands and options after the program is set up,
 * so they inherit that.
 */
export async function runCommandLine<P extends CommandLineProgram>(
  program: P,
  define: (program: P) => void,
  args: string[],
  context: CommandContext,
): Promise<number> {
  program.exitOverride();
  program.configureOutput({
    writeOut: (text) => context.stdout.write(text),
    writeErr: (text) => context.stderr.write(text),
  });
  define(program);
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(args, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    const { code, exitCode } = (error ?? {}) as { code?: unknown; exitCode?: unknown };
    if (typeof code === 'string' && code.startsWith('commander.') && typeof exitCode === 'number')
      return exitCode;
    throw error;
  } finally {
    process.exitCode = previous;
  }
}

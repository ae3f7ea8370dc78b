import { formatIssue, isConfigError } from '@longhaul/core';
import { CommanderError } from 'commander';

/** Exit code for bad input: an experiment, task file or option that does not validate. */
export const badInputExitCode = 2;

/**
 * Runs a command's work; a ConfigError is printed to stderr one issue per line
 * (`file:line:column: key: message`) and becomes exit code 2. Other errors pass through.
 */
export async function reportingConfigErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isConfigError(error)) throw error;
    const count = error.issues.length;
    process.stderr.write(
      `${error.issues.map(formatIssue).join('\n')}\n${count} problem${count === 1 ? '' : 's'} found\n`,
    );
    throw new CommanderError(badInputExitCode, 'longhaul.badInput', error.message);
  }
}

/** Commander option parser for repeatable `--set key=value`. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

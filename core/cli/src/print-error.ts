import { badInputExitCode, configErrorText, isConfigError } from '@longhaul/core/light';
import { CommanderError } from 'commander';

/**
 * Runs a command's work; a ConfigError is printed to stderr one issue per line
 * (`file:line:column: key: message`) and becomes exit code 2. Other errors pass through.
 */
export async function reportingConfigErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isConfigError(error)) throw error;
    process.stderr.write(configErrorText(error));
    throw new CommanderError(badInputExitCode, 'longhaul.badInput', error.message);
  }
}

/** Commander option parser for repeatable `--set key=value`. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

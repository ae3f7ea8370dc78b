import type { ConfigIssue } from '@longhaul/core';

const placeholder = /%%%([A-Z_]+):([A-Za-z_]+)%%%/g;

/**
 * Substitutes SlopCodeBench's placeholders: %%%ENTRYPOINT:entry_command%%% (how the solution is
 * run) and %%%ENTRYPOINT:entry_file%%% (the file it is run from). Any other placeholder is an issue
 * at its line and column.
 */
export function renderSpec(
  text: string,
  file: string,
  values: { entry_command: string; entry_file: string },
  issues: ConfigIssue[],
): string {
  return text.replace(placeholder, (whole, kind: string, name: string, offset: number) => {
    if (kind === 'ENTRYPOINT' && (name === 'entry_command' || name === 'entry_file')) return values[name];
    const before = text.slice(0, offset).split('\n');
    issues.push({
      file,
      line: before.length,
      column: before.at(-1)!.length + 1,
      message: `unknown placeholder '${whole}' (known: %%%ENTRYPOINT:entry_command%%%, %%%ENTRYPOINT:entry_file%%%)`,
    });
    return whole;
  });
}

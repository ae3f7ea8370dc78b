import type { ConfigIssue } from '@longhaul/core';

/** SlopCodeBench's canary comment (`<!-- BENCHMARK DATA SHOULD NEVER APPEAR … -->`), which it strips from specs. */
const canary = /<!--\s*BENCHMARK DATA[\s\S]*?-->[ \t]*(?:\r?\n)*/g;

const placeholder = /%%%([A-Z_]+):([A-Za-z_]+)%%%/g;

/**
 * Substitutes SlopCodeBench's placeholders: %%%ENTRYPOINT:entry_command%%% (how the solution is
 * run) and %%%ENTRYPOINT:entry_file%%% (the file it is run from). Any other placeholder is an issue
 * at its line and column. The canary comment is left out, as SlopCodeBench leaves it out of prompts.
 */
export function renderSpec(
  text: string,
  file: string,
  values: { entry_command: string; entry_file: string },
  issues: ConfigIssue[],
): string {
  const rendered = text.replace(placeholder, (whole, kind: string, name: string, offset: number) => {
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
  return rendered.replace(canary, '');
}

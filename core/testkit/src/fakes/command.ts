import { type CommandContext, type CommandDefinition, runCommand } from '@longhaul/core';

export interface CommandOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a package's command as `longhaul <argv...>` would, capturing what it prints: `argv[0]`
 * names one of `definitions`, a ConfigError it throws is printed and exits 2. `context` can set
 * the working directory and lend a gateway (by default a command that opens one fails).
 */
export async function runCommandCapturing(
  definitions: CommandDefinition | readonly CommandDefinition[],
  argv: string[],
  context: Partial<Omit<CommandContext, 'stdout' | 'stderr'>> = {},
): Promise<CommandOutcome> {
  const [name, ...args] = argv;
  const definition = [definitions].flat().find((candidate) => candidate.name === name);
  if (!definition)
    throw new Error(
      `no command '${name}' among ${[definitions]
        .flat()
        .map((d) => d.name)
        .join(', ')}`,
    );
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCommand(definition, args, {
    cwd: process.cwd(),
    openGateway: () => Promise.reject(new Error('this test lends no model gateway')),
    ...context,
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

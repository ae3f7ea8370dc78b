/** Where a contributed command writes, and the directory it was run from. */
export interface CommandContext {
  cwd: string;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * A CLI subcommand a package adds: `longhaul <name> ...`. The package declares it in its
 * package.json (`"longhaul": {"commands": [{"name", "description"}]}`, so `longhaul --help` lists
 * it without importing anything) and default-exports the definitions (one or an array) from its
 * `"./commands"` export, which is imported only when the command runs. The command parses its own
 * arguments (everything after its name, `--help` included).
 */
export interface CommandDefinition {
  name: string;
  description: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: string[], context: CommandContext): Promise<number>;
}

export function defineCommand(definition: CommandDefinition): CommandDefinition {
  return definition;
}

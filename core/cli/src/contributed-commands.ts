import { pathToFileURL } from 'node:url';
import type { CommandDefinition } from '@longhaul/core';
import type { DeclaredCommand } from '@longhaul/core/light';
import type { Command } from 'commander';
import { discoverManifests, installDirOption } from './plugin-search.js';

/**
 * Adds the commands installed packages declare in their manifests. Only the manifest is read
 * here (without loading the kernel); the package's "./commands" module is imported when its
 * command runs, and the command gets every argument after its name to parse itself.
 */
export async function registerContributedCommands(program: Command): Promise<void> {
  const builtIn = new Set(program.commands.map((command) => command.name()));
  const declared = await discoverManifests().then(
    (manifests) => manifests.commands(),
    () => [] as DeclaredCommand[],
  );
  for (const command of declared) {
    // A built-in command, or one an earlier (nearer) package declared, keeps its name.
    if (builtIn.has(command.name)) continue;
    builtIn.add(command.name);
    program
      .command(command.name)
      .description(`${command.description} (from ${command.packageName})`)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .argument('[args...]')
      .action(async (_args: string[], _options: unknown, self: Command) => {
        process.exitCode = await runContributed(command, self.args);
      });
  }
}

async function runContributed(command: DeclaredCommand, args: string[]): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`longhaul ${command.name}: ${message}\n`);
    return 1;
  };
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(command.module).href)) as { default?: unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return fail(`package '${command.packageName}' cannot import its commands (${command.module}): ${reason}`);
  }
  const exported = Array.isArray(module.default) ? module.default : [module.default];
  const definition = exported.find(
    (value): value is CommandDefinition =>
      typeof value === 'object' &&
      value !== null &&
      (value as CommandDefinition).name === command.name &&
      typeof (value as CommandDefinition).run === 'function',
  );
  if (!definition) {
    return fail(
      `package '${command.packageName}' declares the command in package.json but ${command.module} does not default-export it (export default [defineCommand({ name: '${command.name}', ... })])`,
    );
  }
  const [{ runCommand }, { openCommandGateway }] = await Promise.all([
    import('@longhaul/core'),
    import('./command-gateway.js'),
  ]);
  return runCommand(definition, args, {
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    openGateway: openCommandGateway,
    ...installDirOption(),
  });
}

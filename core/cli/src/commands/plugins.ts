import { ConfigError, type PluginKind, PluginRegistry, pluginKinds } from '@longhaul/core';
import { type Command, InvalidArgumentError } from 'commander';
import { formatColumns } from '../columns.js';
import { reportingConfigErrors } from '../print-error.js';

function parseKind(value: string): PluginKind {
  if (!pluginKinds.includes(value as PluginKind)) {
    throw new InvalidArgumentError(`expected one of ${pluginKinds.join(', ')}`);
  }
  return value as PluginKind;
}

/** `longhaul plugins [kind]`: the plugins installed where the command runs. */
export function register(program: Command): void {
  program
    .command('plugins')
    .description('List the installed plugins (packages in node_modules with a "longhaul" field)')
    .argument('[kind]', `only plugins of this kind (${pluginKinds.join(', ')})`, parseKind)
    .action(async (kind: PluginKind | undefined) => {
      const registry = await reportingConfigErrors(() => PluginRegistry.discover({ cwd: process.cwd() }));
      const plugins = registry.list(kind);
      if (plugins.length === 0) {
        process.stdout.write(`no ${kind ? `${kind} ` : ''}plugins installed under ${process.cwd()}\n`);
      } else {
        const rows = plugins.map((plugin) => [
          plugin.definition.kind,
          plugin.definition.id,
          `${plugin.packageName}@${plugin.version}`,
          plugin.definition.description,
        ]);
        process.stdout.write(`${formatColumns([['KIND', 'ID', 'PACKAGE', 'DESCRIPTION'], ...rows])}\n`);
      }
      // Packages that cannot be loaded are listed after the working plugins, as bad input.
      const problems = registry.problems(kind);
      if (problems.length > 0) await reportingConfigErrors(() => Promise.reject(new ConfigError(problems)));
    });
}

import {
  ConfigError,
  type DeclaredPlugin,
  formatIssue,
  type PluginKind,
  type PluginOrigin,
  pluginKinds,
} from '@longhaul/core/light';
import { type Command, InvalidArgumentError } from 'commander';
import { experimentsLoading } from '../experiments-nearby.js';
import { fitColumns, terminalWidth } from '../fit-columns.js';
import { discoverManifests, discoverPlugins } from '../plugin-search.js';
import { reportingConfigErrors } from '../print-error.js';

function parseKind(value: string): PluginKind {
  if (!pluginKinds.includes(value as PluginKind)) {
    throw new InvalidArgumentError(`expected one of ${pluginKinds.join(', ')}`);
  }
  return value as PluginKind;
}

const origins: Record<PluginOrigin, string> = {
  'plugins-entry': 'plugins:',
  project: 'project',
  cwd: 'cwd',
  install: 'longhaul',
};

const experimentOption = [
  '--experiment <file>',
  "as this experiment sees them: its project's packages too, and the plugins its plugins: names (imported)",
] as const;

/**
 * `longhaul plugins [kind]` and `longhaul plugins show <id>`: what is installed, from manifests;
 * with `--experiment`, what that experiment would load.
 */
export function register(program: Command): void {
  const command = program
    .command('plugins')
    .description(
      'List the installed plugins: packages with a "longhaul" field in node_modules of the working directory or beside longhaul',
    )
    .argument('[kind]', `only plugins of this kind (${pluginKinds.join(', ')})`, parseKind)
    .option(...experimentOption)
    .action(async (kind: PluginKind | undefined, options: { experiment?: string }) => {
      const manifests = await reportingConfigErrors(() =>
        options.experiment === undefined ? discoverManifests() : discoverPlugins(options.experiment),
      );
      const plugins = manifests.declared(kind);
      if (plugins.length === 0) {
        const where =
          options.experiment === undefined ? `under ${process.cwd()}` : `for ${options.experiment}`;
        process.stdout.write(`no ${kind ? `${kind} ` : ''}plugins installed ${where}\n`);
      } else {
        const rows = plugins.map((plugin) => [
          plugin.kind,
          plugin.id,
          `${plugin.packageName}@${plugin.version}`,
          `${origins[plugin.origin]} ${plugin.dir}`,
          plugin.description,
        ]);
        process.stdout.write(
          `${fitColumns([['KIND', 'ID', 'PACKAGE', 'FROM', 'DESCRIPTION'], ...rows], terminalWidth(), 3)}\n`,
        );
      }
      // Packages whose manifest is invalid, or that declare the same plugin, come after, as bad input.
      const problems = manifests.problems(kind);
      if (problems.length > 0) await reportingConfigErrors(() => Promise.reject(new ConfigError(problems)));
    });
  command
    .command('show')
    .description("Print a plugin's options (name, type, default, description), importing only its package")
    .argument('<id>', 'plugin id, or kind/id when two kinds share the id')
    .option(...experimentOption)
    .action(async function (this: Command, name: string) {
      // `plugins` takes --experiment too, and takes it wherever it is written.
      const { experiment } = { ...this.parent?.opts(), ...this.opts() } as { experiment?: string };
      const registry = await reportingConfigErrors(() => discoverPlugins(experiment));
      const [kind, id] = name.includes('/') ? (name.split('/', 2) as [string, string]) : [undefined, name];
      const matches = registry
        .declared()
        .filter((p) => p.id === id && (kind === undefined || p.kind === kind));
      const fail = (message: string) =>
        reportingConfigErrors(() =>
          Promise.reject(new ConfigError([{ file: 'plugins show', key: name, message }])),
        );
      if (matches.length === 0) {
        const problems = registry.problems().filter((issue) => issue.message.includes(`'${id}'`));
        if (problems.length > 0) return fail(problems.map(formatIssue).join('; '));
        if (experiment !== undefined)
          return fail(`no plugin '${name}' is installed or named under plugins: of ${experiment}`);
        const loading = await experimentsLoading(id as string, kind as PluginKind | undefined);
        if (loading.length > 0) {
          const first = loading[0] as string;
          return fail(
            `no plugin '${name}' is installed; ${loading.join(', ')} ${loading.length === 1 ? 'loads' : 'load'} it through plugins: (longhaul plugins show ${name} --experiment ${first})`,
          );
        }
        return fail(`no plugin '${name}' is installed (see longhaul plugins)`);
      }
      if (matches.length > 1) {
        return fail(`'${id}' names ${matches.map((p) => `${p.kind}/${p.id}`).join(' and ')}; say which`);
      }
      const declared = matches[0] as DeclaredPlugin;
      await registry.load([declared]);
      const plugin = registry.get(declared.kind, declared.id);
      if (!plugin) {
        return reportingConfigErrors(() =>
          Promise.reject(new ConfigError(registry.problems(declared.kind, declared.id))),
        );
      }
      const { definition } = plugin;
      process.stdout.write(
        `${definition.kind} ${definition.id} (${plugin.packageName}@${plugin.version}, ${plugin.dir})\n${definition.description}\n\n`,
      );
      const { optionRows } = await import('@longhaul/core');
      const rows = optionRows(definition.options);
      if (rows.length === 0) {
        process.stdout.write('no options\n');
        return;
      }
      const table = rows.map((row) => [
        row.name,
        row.type,
        row.required ? '(required)' : row.default,
        row.description,
      ]);
      process.stdout.write(
        `${fitColumns([['OPTION', 'TYPE', 'DEFAULT', 'DESCRIPTION'], ...table], terminalWidth(), 1)}\n`,
      );
    });
}

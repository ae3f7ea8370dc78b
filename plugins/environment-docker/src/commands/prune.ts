import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type CommandContext,
  defineCommand,
  type Environment,
  PluginRegistry,
  runCommandLine,
  runIdOf,
  standalonePlugin,
} from '@longhaul/core';
import { Command } from 'commander';
import { connectDocker, DockerEnvironment } from '../environment.js';
import { dockerOptions } from '../options.js';
import { prune, removedNames } from '../prune.js';

const description =
  'Remove what runs whose process is gone left behind: containers, volumes, networks and firewall chains of the docker environment, sandbox folders of the local one';

/** `longhaul prune`: removes what crashed runs left behind, in every installed environment. */
export const pruneCommand = defineCommand({
  name: 'prune',
  description,
  run: (args, context) =>
    runCommandLine(
      new Command('longhaul prune').description(description),
      (program) => define(program, context),
      args,
      context,
    ),
});

/**
 * Every installed environment that can reclaim leftovers, by id; this one (docker) is always
 * among them, wherever the command runs.
 */
async function environments(context: CommandContext): Promise<Map<string, Environment>> {
  const installDir = context.installDir === undefined ? {} : { installDir: context.installDir };
  const discovered = await PluginRegistry.discover({ cwd: context.cwd, ...installDir });
  const registry = await discovered.load(discovered.declared('environment'));
  const found = new Map<string, Environment>();
  for (const plugin of registry.list('environment')) {
    const id = plugin.definition.id;
    try {
      found.set(id, standalonePlugin<Environment>(registry, 'environment', id));
    } catch (error) {
      context.stderr.write(`environment ${id}: cannot start without options (${(error as Error).message})\n`);
    }
  }
  if (!found.has('docker')) found.set('docker', new DockerEnvironment(dockerOptions.parse({})));
  return found;
}

function define(program: Command, context: CommandContext): void {
  program
    .option('--run <id|dir>', 'only what this run left (its id, or its run directory)')
    .option('--all', 'also remove the Docker objects of runs that are still going', false)
    .action(async (options: { run?: string; all: boolean }) => {
      const runDir = options.run === undefined ? undefined : resolve(context.cwd, options.run);
      if (runDir !== undefined && isDirectory(runDir)) options.run = runIdOf(runDir);
      let failed = false;
      for (const [id, environment] of await environments(context)) {
        if (!environment.reclaim) continue;
        try {
          const { removed } =
            id === 'docker' && options.all
              ? await pruneLiveToo(options.run)
              : await environment.reclaim({ runId: options.run });
          const lines = [`${id}: removed ${removed.length === 0 ? 'nothing' : removed.length}`];
          for (const name of removed) lines.push(`  ${name}`);
          context.stdout.write(`${lines.join('\n')}\n`);
        } catch (error) {
          failed = true;
          context.stderr.write(`${id}: ${(error as Error).message}\n`);
        }
      }
      if (failed) process.exitCode = 1;
    });
}

/** `--all`: the docker objects of live runs go too (their owner process loses its sandboxes). */
async function pruneLiveToo(runId: string | undefined): Promise<{ removed: string[] }> {
  return { removed: removedNames(await prune(await connectDocker(), { runId, all: true })) };
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

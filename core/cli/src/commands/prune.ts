import { type Environment, standalonePlugin } from '@longhaul/core';
import {
  connectDocker,
  DockerEnvironment,
  dockerOptions,
  prune,
  removedNames,
} from '@longhaul/environment-docker';
import type { Command } from 'commander';
import { discoverPlugins } from '../plugin-search.js';
import { reportingConfigErrors } from '../print-error.js';

/**
 * Every installed environment that can reclaim leftovers, by id. The docker environment ships
 * with the CLI, so prune reaches it wherever the command runs.
 */
async function environments(): Promise<Map<string, Environment>> {
  const registry = await reportingConfigErrors(async () => {
    const found = await discoverPlugins();
    return found.load(found.declared('environment'));
  });
  const found = new Map<string, Environment>();
  for (const plugin of registry.list('environment')) {
    const id = plugin.definition.id;
    try {
      found.set(id, standalonePlugin<Environment>(registry, 'environment', id));
    } catch (error) {
      process.stderr.write(`environment ${id}: cannot start without options (${(error as Error).message})\n`);
    }
  }
  if (!found.has('docker')) found.set('docker', new DockerEnvironment(dockerOptions.parse({})));
  return found;
}

/** `longhaul prune`: removes what crashed runs left behind, in every installed environment. */
export function register(program: Command): void {
  program
    .command('prune')
    .description(
      'Remove what runs whose process is gone left behind: containers, volumes, networks and firewall chains of the docker environment, sandbox folders of the local one',
    )
    .option('--run <id>', 'only what this run left')
    .option('--all', 'also remove the Docker objects of runs that are still going', false)
    .action(async (options: { run?: string; all: boolean }) => {
      let failed = false;
      for (const [id, environment] of await environments()) {
        if (!environment.reclaim) continue;
        try {
          const { removed } =
            id === 'docker' && options.all
              ? await pruneLiveToo(options.run)
              : await environment.reclaim({ runId: options.run });
          const lines = [`${id}: removed ${removed.length === 0 ? 'nothing' : removed.length}`];
          for (const name of removed) lines.push(`  ${name}`);
          process.stdout.write(`${lines.join('\n')}\n`);
        } catch (error) {
          failed = true;
          process.stderr.write(`${id}: ${(error as Error).message}\n`);
        }
      }
      if (failed) process.exitCode = 1;
    });
}

/** `--all`: the docker objects of live runs go too (their owner process loses its sandboxes). */
async function pruneLiveToo(runId: string | undefined): Promise<{ removed: string[] }> {
  return { removed: removedNames(await prune(await connectDocker(), { runId, all: true })) };
}

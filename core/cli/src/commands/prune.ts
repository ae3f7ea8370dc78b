import { connectDocker, prune } from '@longhaul/environment-docker';
import type { Command } from 'commander';

/** `longhaul prune`: removes the Docker objects crashed runs left behind. */
export function register(program: Command): void {
  program
    .command('prune')
    .description(
      'Remove the containers, volumes, networks and firewall chains labelled longhaul.run that no running process owns',
    )
    .option('--run <id>', 'only what this run left')
    .option('--all', 'also remove objects of runs that are still going', false)
    .action(async (options: { run?: string; all: boolean }) => {
      const docker = await connectDocker();
      const report = await prune(docker, { runId: options.run, all: options.all });
      const lines = [
        `removed ${report.containers.length} container(s), ${report.volumes.length} volume(s), ${report.networks.length} network(s), ${report.chains.length} firewall chain(s)`,
        ...report.containers.map((c) => `  container ${c}`),
        ...report.networks.map((n) => `  network ${n}`),
      ];
      if (report.kept > 0)
        lines.push(`kept ${report.kept} object(s) of runs still going (--all removes them too)`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}

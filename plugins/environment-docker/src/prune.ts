import type Docker from 'dockerode';
import { chainOf, installedChains, removeChain } from './firewall.js';
import { labels, ownerAlive } from './labels.js';

export interface PruneOptions {
  /** Only what this run left. */
  runId?: string;
  /** Also remove objects whose owning process still runs (a live run loses its sandboxes). */
  all?: boolean;
}

export interface PruneReport {
  containers: string[];
  volumes: string[];
  networks: string[];
  chains: string[];
  /** Objects left alone because the process that made them still runs. */
  kept: number;
}

/**
 * Removes the containers, volumes and networks (and their iptables chains) that runs left behind:
 * everything labelled `longhaul.run`, except what belongs to a process that is still running.
 */
export async function prune(docker: Docker, options: PruneOptions = {}): Promise<PruneReport> {
  const label = options.runId === undefined ? labels.run : `${labels.run}=${options.runId}`;
  const filters = JSON.stringify({ label: [label] });
  const report: PruneReport = { containers: [], volumes: [], networks: [], chains: [], kept: 0 };
  const stale = (tags: Record<string, string> | undefined) => {
    const fresh = options.all !== true && ownerAlive(tags?.[labels.owner]);
    if (fresh) report.kept += 1;
    return !fresh;
  };
  for (const c of await docker.listContainers({ all: true, filters })) {
    if (!stale(c.Labels)) continue;
    await docker
      .getContainer(c.Id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
    report.containers.push(c.Names[0]?.replace(/^\//, '') ?? c.Id.slice(0, 12));
  }
  const { Volumes: volumes } = await docker.listVolumes({ filters });
  for (const v of volumes ?? []) {
    if (!stale(v.Labels ?? undefined)) continue;
    await docker
      .getVolume(v.Name)
      .remove()
      .then(() => report.volumes.push(v.Name))
      .catch(() => undefined);
  }
  const ofRemoved = new Set<string>();
  for (const n of await docker.listNetworks({ filters })) {
    if (!stale(n.Labels)) continue;
    await docker
      .getNetwork(n.Id)
      .remove()
      .then(() => {
        report.networks.push(n.Name);
        ofRemoved.add(chainOf(n.Id));
      })
      .catch(() => undefined);
  }
  // A chain outlives its network when a process died between the two removals. A chain does not
  // record its run, so only a prune of every run removes such a chain; a prune of one run removes
  // the chains of the networks it removed. (Another run's chain is orphaned for a moment while
  // that run closes its network: a prune of one run must not count it as its own.)
  const live = new Set((await docker.listNetworks()).map((n) => chainOf(n.Id)));
  for (const chain of await installedChains()) {
    if (live.has(chain) || (options.runId !== undefined && !ofRemoved.has(chain))) continue;
    await removeChain(chain);
    report.chains.push(chain);
  }
  return report;
}

/** One name per object a prune removed, e.g. `container longhaul-…`, `firewall chain LONGHAUL-…`. */
export function removedNames(report: PruneReport): string[] {
  return [
    ...report.containers.map((name) => `container ${name}`),
    ...report.volumes.map((name) => `volume ${name}`),
    ...report.networks.map((name) => `network ${name}`),
    ...report.chains.map((name) => `firewall chain ${name}`),
  ];
}

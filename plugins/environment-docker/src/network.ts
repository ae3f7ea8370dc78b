import { createHash } from 'node:crypto';
import { ClassifiedError } from '@longhaul/core';
import type Docker from 'dockerode';
import { HostFirewall } from './firewall.js';
import { dockerName, labels, ownerLabel } from './labels.js';

export interface RunNetwork {
  name: string;
  id: string;
  /** The bridge's address on the host: how sandboxes reach host services (the model gateway). */
  gateway: string;
  firewall?: HostFirewall;
}

export interface NetworkRequest {
  runId: string;
  mode: 'none' | 'open';
  firewall: boolean;
  hostPorts: readonly number[];
}

/** The network a sandbox was to join no longer exists: another process of the run removed it. */
export class NetworkGone extends Error {
  constructor(name: string, options?: ErrorOptions) {
    super(`docker network ${name} was removed by another process of the run`, options);
  }
}

interface Held {
  network: Promise<RunNetwork>;
  users: number;
}

// Sandboxes of a run share its network, whichever environment instance opened them.
const held = new Map<string, Held>();
const removing = new Map<string, Promise<void>>();

function statusCode(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

/** Makes the run network `name`, or joins it when another process of the run made it first. */
export async function createOrJoin(
  docker: Docker,
  name: string,
  request: NetworkRequest,
): Promise<RunNetwork> {
  const bridge = `lh-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
  try {
    await docker.createNetwork({
      Name: name,
      Driver: 'bridge',
      Internal: request.mode === 'none',
      CheckDuplicate: true,
      Labels: { [labels.run]: request.runId, [labels.network]: request.mode, [labels.owner]: ownerLabel() },
      // Trials of a run share the network but must not reach each other.
      Options: { 'com.docker.network.bridge.enable_icc': 'false', 'com.docker.network.bridge.name': bridge },
    });
  } catch (error) {
    // Another process of the run made it first: the daemon says so with 409, or, when both asked
    // at the same moment, with 403 for the second network on the same bridge.
    const raced =
      statusCode(error) === 409 || (statusCode(error) === 403 && /same bridge name/.test(String(error)));
    if (!raced) throw error;
  }
  const info = await docker.getNetwork(name).inspect();
  const gateway: string | undefined = info.IPAM?.Config?.[0]?.Gateway;
  if (gateway === undefined)
    throw new ClassifiedError('sandbox', `docker network ${name} has no gateway address`);
  const network: RunNetwork = { name, id: info.Id, gateway };
  if (request.firewall) {
    network.firewall = new HostFirewall(info.Id, bridge, gateway, request.hostPorts, request.mode === 'none');
    try {
      await network.firewall.install();
    } catch (error) {
      throw new ClassifiedError(
        'sandbox',
        `could not install the iptables rules that keep sandboxes away from host services (${(error as Error).message.trim()}); run as root on the Docker host, or set the docker environment's option firewall: false`,
        { cause: error },
      );
    }
  }
  return network;
}

/** The run's network for this mode, made on first use; release it once per acquire. */
export async function acquireNetwork(docker: Docker, request: NetworkRequest): Promise<RunNetwork> {
  const name = `longhaul-${dockerName(request.runId)}-${request.mode}`;
  let entry = held.get(name);
  if (entry === undefined) {
    const removed = removing.get(name) ?? Promise.resolve();
    entry = { network: removed.then(() => createOrJoin(docker, name, request)), users: 0 };
    held.set(name, entry);
    const made = entry;
    entry.network.catch(() => {
      if (held.get(name) === made) held.delete(name);
    });
  }
  entry.users += 1;
  return entry.network;
}

/** The entry of this process that holds `network`: none when it was forgotten (see `forgetNetwork`). */
async function holding(network: RunNetwork): Promise<Held | undefined> {
  const entry = held.get(network.name);
  return entry && (await entry.network.catch(() => undefined)) === network ? entry : undefined;
}

/**
 * Drops a network that another process of the run removed (it closed its last sandbox while this
 * one was opening one): the next acquire makes the network again. The sandboxes that acquired it
 * here fail to attach and acquire again too, and their release no longer counts toward the new one.
 */
export async function forgetNetwork(network: RunNetwork): Promise<void> {
  if (!(await holding(network))) return;
  held.delete(network.name);
  // Its firewall chain would otherwise outlive it until a prune of every run.
  await network.firewall?.remove();
}

/** Removes the network (and its firewall) when its last sandbox in this process is gone. */
export async function releaseNetwork(docker: Docker, network: RunNetwork): Promise<void> {
  const entry = await holding(network);
  if (entry === undefined) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  held.delete(network.name);
  const done = removeNetwork(docker, network);
  removing.set(network.name, done);
  await done;
  if (removing.get(network.name) === done) removing.delete(network.name);
}

async function removeNetwork(docker: Docker, network: RunNetwork): Promise<void> {
  try {
    await docker.getNetwork(network.id).remove();
  } catch (error) {
    // Still in use by another process of the run (which removes it after its last sandbox), or gone.
    if (statusCode(error) !== 404) return;
  }
  await network.firewall?.remove();
}

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { chainPrefix, installedChains, iptables, removeChain } from '../src/firewall.js';
import { baseImageRef, prune } from '../src/index.js';
import { openAndHang } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

async function leftovers(docker: Docker, runId: string) {
  const filters = JSON.stringify({ label: [`longhaul.run=${runId}`] });
  const [containers, volumes, networks] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listVolumes({ filters }),
    docker.listNetworks({ filters }),
  ]);
  return { containers: containers.length, volumes: volumes.Volumes?.length ?? 0, networks: networks.length };
}

describe.skipIf(!dockerReady)('prune', () => {
  it('removes everything a SIGKILLed run left behind, and nothing of a live one', async () => {
    const docker = new Docker();
    const runId = `prune-${process.pid}-${Date.now()}`;
    const child = await openAndHang(runId);
    const networkId = (
      await docker.listNetworks({ filters: JSON.stringify({ label: [`longhaul.run=${runId}`] }) })
    )[0]?.Id;
    expect(await leftovers(docker, runId)).toEqual({ containers: 2, volumes: 2, networks: 1 });

    const whileAlive = await prune(docker, { runId });
    expect(whileAlive.containers).toEqual([]);
    expect(whileAlive.kept).toBeGreaterThan(0);
    expect(await leftovers(docker, runId)).toEqual({ containers: 2, volumes: 2, networks: 1 });

    child.kill('SIGKILL');
    await once(child, 'exit');
    const report = await prune(docker, { runId });
    expect(report.containers).toHaveLength(2);
    expect(await leftovers(docker, runId)).toEqual({ containers: 0, volumes: 0, networks: 0 });
    expect(await installedChains()).not.toContain(`${chainPrefix}${networkId?.slice(0, 12)}`);
  });

  it("leaves another run's chain whose network is gone (that run may be closing it) to a prune of every run", async () => {
    const chain = `${chainPrefix}${randomBytes(6).toString('hex')}`;
    await iptables('-N', chain);
    try {
      const report = await prune(new Docker(), { runId: `none-${process.pid}` });
      expect(report.chains).toEqual([]);
      expect(await installedChains()).toContain(chain);
    } finally {
      await removeChain(chain);
    }
  });
});

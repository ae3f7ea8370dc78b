import { hasErrorClass } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { chainOf, installedChains } from '../src/firewall.js';
import { baseImageRef, DockerEnvironment, dockerOptions } from '../src/index.js';
import { acquireNetwork, createOrJoin, releaseNetwork } from '../src/network.js';
import { connectProbe, environment, portOf, runOf, serve, spec } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

const runNetworks = (runId: string) =>
  new Docker().listNetworks({ filters: JSON.stringify({ label: [`longhaul.run=${runOf(runId)}`] }) });

describe('docker daemon', () => {
  it('says where it looked and what to do when there is no daemon', async () => {
    const env = new DockerEnvironment(
      dockerOptions.parse({}),
      undefined,
      undefined,
      new Docker({ socketPath: '/nonexistent/docker.sock' }),
    );
    const error = await env.open(spec('no-daemon')).catch((e: unknown) => e);
    expect(hasErrorClass(error, 'sandbox')).toBe(true);
    expect(String(error)).toMatch(/cannot reach the Docker daemon .*start dockerd or set DOCKER_HOST/);
  });
});

describe('a run network shared by processes of one run', () => {
  it('is joined when another process created it at the same moment (the daemon answers 403)', async () => {
    // Two creates of one name at once: the daemon refuses the second for its bridge, not its name.
    const removed: string[] = [];
    const docker = {
      createNetwork: async () => {
        throw Object.assign(
          new Error(
            '(HTTP code 403) unexpected - cannot create network 0244 (lh-20b78d543bc2): conflicts with network 2b31 (lh-20b78d543bc2): networks have same bridge name',
          ),
          { statusCode: 403 },
        );
      },
      getNetwork: (id: string) => ({
        inspect: async () => ({ Id: '2b31', IPAM: { Config: [{ Gateway: '172.30.0.1' }] } }),
        remove: async () => void removed.push(id),
      }),
    } as unknown as Docker;
    const request = { runId: runOf('raced'), mode: 'none', firewall: false, hostPorts: [] } as const;
    const network = await acquireNetwork(docker, request);
    expect(network).toMatchObject({ id: '2b31', gateway: '172.30.0.1' });
    await releaseNetwork(docker, network);
    expect(removed).toEqual(['2b31']);
  });
});

describe.skipIf(!dockerReady)('docker run networks', () => {
  it('shares one network among sandboxes opened at once, and removes it after the last closes', async () => {
    const env = environment();
    const sandboxes = await Promise.all(
      [1, 2, 3, 4].map((n) => env.open(spec('net-shared', { trialId: `net-shared.t${n}` }))),
    );
    try {
      expect(new Set(sandboxes.map((s) => s.hostAddress)).size).toBe(1);
      expect(await runNetworks('net-shared')).toHaveLength(1);
      const results = await Promise.all(sandboxes.map((s) => s.exec(['echo', 'ok'])));
      expect(results.map((r) => r.stdout)).toEqual(['ok\n', 'ok\n', 'ok\n', 'ok\n']);
    } finally {
      await Promise.all(sandboxes.map((s) => s.close()));
    }
    expect(await runNetworks('net-shared')).toHaveLength(0);
  });

  it('opens a non-internal network with network: open, still guarding the host', async () => {
    await environment({ network: 'open' })
      .open(spec('net-open'))
      .then(async (sandbox) => {
        try {
          const [network] = await runNetworks('net-open');
          expect(network?.Internal).toBe(false);
          expect(network?.Name).toBe(`longhaul-${runOf('net-open')}-open`);
          const routes = (await sandbox.exec(['cat', '/proc/net/route'])).stdout;
          expect(routes).toMatch(/\n\S+\s+00000000\s/);
          const host = await serve('0.0.0.0', 'private');
          try {
            const probe = await sandbox.exec(connectProbe(sandbox.hostAddress, portOf(host)));
            expect(probe.stdout.trim()).toBe('ConnectionRefusedError');
          } finally {
            host.close();
          }
        } finally {
          await sandbox.close();
        }
      });
  });

  it('opens a sandbox after another process of the run removed the network this one holds', async () => {
    // This process holds the network but has no sandbox on it yet: another process of the run
    // may close its last sandbox and remove the network in that moment.
    const docker = new Docker();
    const runId = runOf('net-gone');
    const stale = await acquireNetwork(docker, { runId, mode: 'none', firewall: true, hostPorts: [] });
    await docker.getNetwork(stale.id).remove();
    const sandbox = await environment().open(spec('net-gone'));
    try {
      expect(await installedChains()).not.toContain(chainOf(stale.id));
      // The stale hold's release neither removes the new network nor counts toward it.
      await releaseNetwork(docker, stale);
      const [network] = await runNetworks('net-gone');
      expect(network?.Id).not.toBe(stale.id);
      expect((await sandbox.exec(['echo', 'ok'])).stdout).toBe('ok\n');
      // The container that could not start on the removed network is not left behind.
      const containers = await docker.listContainers({
        all: true,
        filters: JSON.stringify({ label: [`longhaul.run=${runId}`] }),
      });
      expect(containers).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
    expect(await runNetworks('net-gone')).toHaveLength(0);
  });

  it("joins the network another process of the run made again, with that network's gateway", async () => {
    const docker = new Docker();
    const runId = runOf('net-again');
    const stale = await acquireNetwork(docker, { runId, mode: 'none', firewall: false, hostPorts: [] });
    await docker.getNetwork(stale.id).remove();
    // Made again by another process of the run. A placeholder takes the address range the
    // removed network freed, so the new one's gateway differs from the stale one's.
    const placeholder = await docker.createNetwork({ Name: `${stale.name}-placeholder`, Internal: true });
    const again = await createOrJoin(docker, stale.name, {
      runId,
      mode: 'none',
      firewall: false,
      hostPorts: [],
    });
    await placeholder.remove();
    try {
      const { gateway } = again;
      expect(gateway).not.toBe(stale.gateway);
      const sandbox = await environment().open(spec('net-again'));
      try {
        expect(sandbox.hostAddress).toBe(gateway);
        expect((await sandbox.exec(['echo', 'ok'])).stdout).toBe('ok\n');
      } finally {
        await sandbox.close();
      }
    } finally {
      await docker
        .getNetwork(again.id)
        .remove()
        .catch(() => undefined);
      await releaseNetwork(docker, stale);
    }
  });
});

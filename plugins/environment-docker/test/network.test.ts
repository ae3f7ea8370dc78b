import { hasErrorClass } from '@longhaul/testkit';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { DockerEnvironment, dockerOptions } from '../src/index.js';
import { skipWithoutDocker } from './docker-ready.js';
import { connectProbe, environment, portOf, runOf, serve, spec } from './helpers.js';

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

if (!skipWithoutDocker()) {
  describe('docker run networks', () => {
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
  });
}

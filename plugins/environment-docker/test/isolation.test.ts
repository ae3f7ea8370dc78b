import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { afterEach, describe, expect, it } from 'vitest';
import { baseImageRef, DockerEnvironment, dockerOptions } from '../src/index.js';
import {
  connectProbe,
  environment,
  portOf,
  runOf,
  serve,
  spec,
  withSandbox,
  withTempDir,
} from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

/** An IPv4 address of this host that is not loopback and not a Docker bridge. */
function otherHostAddress(): string | undefined {
  return Object.entries(networkInterfaces())
    .filter(([name]) => !name.startsWith('lh-') && !name.startsWith('docker') && !name.startsWith('br-'))
    .flatMap(([, addresses]) => addresses ?? [])
    .find((a) => a.family === 'IPv4' && !a.internal)?.address;
}

describe.skipIf(!dockerReady)('docker sandbox isolation', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('runs the agent as the unprivileged user agent (uid 1000), and root only when asked', async () => {
    await withSandbox(environment(), spec('iso-user'), async (sandbox) => {
      expect((await sandbox.exec(['id', '-un'])).stdout.trim()).toBe('agent');
      expect((await sandbox.exec(['id', '-u'])).stdout.trim()).toBe('1000');
      expect((await sandbox.exec(['sh', '-c', 'touch /etc/owned'])).exitCode).not.toBe(0);
      expect((await sandbox.exec(['id', '-u'], { user: 'root' })).stdout.trim()).toBe('0');
      expect((await sandbox.exec(['sh', '-c', 'touch mine && stat -c %U mine'])).stdout.trim()).toBe('agent');
    });
  });

  it('cannot reach the internet on the default network: the network is internal and a connect is refused at once', async () => {
    await withSandbox(environment(), spec('iso-internet'), async (sandbox) => {
      const networks = await new Docker().listNetworks({
        filters: JSON.stringify({ label: [`longhaul.run=${runOf('iso-internet')}`] }),
      });
      expect(networks.map((n) => n.Internal)).toEqual([true]);
      // Refused, not TimeoutError: the connect fails at once instead of waiting for its timeout.
      const probe = await sandbox.exec(connectProbe('1.1.1.1', 53));
      expect(probe.stdout.trim()).toBe('ConnectionRefusedError');
    });
  });

  it('reaches the host only at hostAddress, on a port served there; every other host port is refused', async () => {
    await withSandbox(environment(), spec('iso-host'), async (sandbox) => {
      const allowed = await serve(sandbox.hostAddress, 'gateway');
      const everywhere = await serve('0.0.0.0', 'private');
      servers.push(allowed, everywhere);
      const reach = async (host: string, port: number) =>
        (await sandbox.exec(connectProbe(host, port))).stdout.trim();
      expect(await reach(sandbox.hostAddress, portOf(allowed))).toBe('open gateway');
      expect(await reach(sandbox.hostAddress, portOf(everywhere))).not.toMatch(/^open/);
      const other = otherHostAddress();
      if (other !== undefined) expect(await reach(other, portOf(everywhere))).not.toMatch(/^open/);
    });
  });

  it('keeps hidden cases out: the task directory is not in the container, and a scorer sandbox is a separate container', async () => {
    await withTempDir(async (root) => {
      const cases = join(root, 'steps', '01-first', 'cases');
      await mkdir(cases, { recursive: true });
      await writeFile(join(cases, 'secret.yaml'), 'expected: hidden-answer-4242\n');
      const env = environment();
      const task = { id: 'hidden', root };
      await withSandbox(env, spec('iso-hidden', { task }), async (agent) => {
        expect((await agent.exec(['test', '-e', cases])).exitCode).not.toBe(0);
        const mounts = (await agent.exec(['cat', '/proc/self/mountinfo'])).stdout;
        expect(mounts).not.toContain(root);
        const search = await agent.exec(
          ['grep', '-rl', 'hidden-answer-4242', '/', '--exclude-dir=proc', '--exclude-dir=sys'],
          {
            user: 'root',
            timeoutMs: 60_000,
          },
        );
        expect(search.stdout.trim()).toBe('');
        const ref = await agent.snapshot();
        await withSandbox(env, spec('iso-hidden', { task, purpose: 'scorer', from: ref }), async (scorer) => {
          expect(scorer.id).not.toBe(agent.id);
          await scorer.writeFile('.cases/secret.yaml', 'expected: hidden-answer-4242\n');
          expect((await scorer.exec(['cat', '.cases/secret.yaml'])).stdout).toContain('hidden-answer-4242');
          expect((await agent.exec(['ls', '-A'])).stdout).not.toContain('.cases');
        });
      });
    });
  });

  it('keeps trials of a run apart while the host reaches each through expose()', async () => {
    const env = environment();
    await withSandbox(env, spec('iso-trials', { trialId: 'a' }), async (a) => {
      await withSandbox(env, spec('iso-trials', { trialId: 'b' }), async (b) => {
        expect(a.hostAddress).toBe(b.hostAddress);
        const server = await a.start(['python3', '-m', 'http.server', '8000', '--bind', '0.0.0.0']);
        const url = await a.expose(8000);
        let response: Response | undefined;
        for (let i = 0; i < 50 && response === undefined; i++) {
          response = await fetch(url).catch(async () => {
            await new Promise((r) => setTimeout(r, 100));
            return undefined;
          });
        }
        expect(response?.status).toBe(200);
        const host = new URL(url).hostname;
        expect((await b.exec(connectProbe(host, 8000))).stdout.trim()).not.toMatch(/^open/);
        await server.kill();
      });
    });
  });
});

describe.skipIf(!dockerReady)('docker mounts', () => {
  it('mounts host paths read-only at the same path (or where HOST:CONTAINER says), relative to the experiment', async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, 'tool'));
      await writeFile(join(dir, 'tool', 'hello'), '#!/bin/sh\necho hello from the host\n', { mode: 0o755 });
      const env = new DockerEnvironment(
        dockerOptions.parse({ mounts: ['tool', `${join(dir, 'tool')}:/opt/tool`] }),
        undefined,
        dir,
      );
      await withSandbox(env, spec('mounts'), async (sandbox) => {
        expect((await sandbox.exec([join(dir, 'tool', 'hello')])).stdout).toBe('hello from the host\n');
        expect((await sandbox.exec(['/opt/tool/hello'])).stdout).toBe('hello from the host\n');
        const write = await sandbox.exec(['sh', '-c', `echo x > ${join(dir, 'tool', 'new')}`], {
          user: 'root',
        });
        expect(write.stderr).toContain('Read-only file system');
      });
    });
  });
});

describe.skipIf(!dockerReady)('docker workspace files', () => {
  it('keeps symlinks as links in snapshots and follows them in readFile, within the workspace only', async () => {
    await withSandbox(environment(), spec('files-links'), async (sandbox) => {
      await sandbox.writeFile('data/real.txt', 'real');
      await sandbox.exec(['sh', '-c', 'ln -s data/real.txt link.txt && ln -s /etc/passwd outside.txt']);
      expect(Buffer.from(await sandbox.readFile('link.txt')).toString()).toBe('real');
      await expect(sandbox.readFile('outside.txt')).rejects.toThrow('outside the workspace');
      const link = (await sandbox.pull()).find((f) => f.path === 'link.txt');
      expect(link && Buffer.from(link.data).toString()).toBe('data/real.txt');
      expect((link?.mode ?? 0) & 0o170000).toBe(0o120000);
      const ref = await sandbox.snapshot();
      await sandbox.remove('link.txt');
      await sandbox.restore(ref);
      expect((await sandbox.exec(['readlink', 'link.txt'])).stdout.trim()).toBe('data/real.txt');
    });
  });
});

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommandCapturing } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import commands from '../src/commands/index.js';
import { baseImageRef, dockerOptions } from '../src/index.js';
import { environment, runOf, spec, withSandbox } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

describe('docker option host', () => {
  it('names the key of a malformed endpoint or misplaced tls', () => {
    const bad = dockerOptions.safeParse({ host: ['unix:///a.sock', 'http://h:1'] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['host', 1]);
    const tls = dockerOptions.safeParse({ host: 'unix:///a.sock', tls: { ca: 'a', cert: 'b', key: 'c' } });
    expect(tls.error?.issues[0]?.path).toEqual(['tls']);
    expect(
      dockerOptions.safeParse({ host: 'tcp://h:2376', tls: { ca: 'a', cert: 'b', key: 'c' } }).success,
    ).toBe(true);
  });

  it('refuses a sandbox on a remote daemon before touching it, naming the option', async () => {
    await expect(environment({ host: 'tcp://192.0.2.1:2376' }).open(spec('lh-remote'))).rejects.toThrow(
      /docker option host: tcp:\/\/192\.0\.2\.1:2376 is a remote daemon/,
    );
  });

  it('images build --host refuses what is not an endpoint', async () => {
    const result = await runCommandCapturing(commands, ['images', 'build', '--host', 'docker.example:2375']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("argument 'docker.example:2375' is invalid. not a Docker endpoint");
  });

  it('reports a dead endpoint as a sandbox fault', async () => {
    await expect(
      environment({ host: 'unix:///nonexistent/docker.sock' }).open(spec('lh-dead')),
    ).rejects.toMatchObject({
      errorClass: 'sandbox',
      message: expect.stringContaining('unix:///nonexistent/docker.sock'),
    });
  });
});

const dockerdMissing = !existsSync('/usr/sbin/dockerd')
  ? 'dockerd is not installed'
  : process.getuid?.() !== 0
    ? 'starting a second dockerd needs root'
    : undefined;

describe.skipIf(!dockerReady)('sandboxes on a second Docker daemon', () => {
  if (dockerdMissing !== undefined) {
    it.skip(`second daemon tests skipped: ${dockerdMissing}`, () => {});
    return;
  }
  let dir = '';
  let daemon: ChildProcess | undefined;
  let socket = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lh-dockerd-'));
    socket = join(dir, 'docker.sock');
    // In a network namespace of its own: a daemon started with `--bridge=none` deletes the host's
    // `docker0`, and every later build or container on the main daemon fails to find its bridge.
    daemon = spawn(
      'unshare',
      [
        '--net',
        'dockerd',
        `--data-root=${join(dir, 'data')}`,
        `--exec-root=${join(dir, 'exec')}`,
        `--pidfile=${join(dir, 'docker.pid')}`,
        `-H=unix://${socket}`,
        '--bridge=none',
        '--iptables=false',
        '--ip6tables=false',
      ],
      { stdio: 'ignore' },
    );
    const second = new Docker({ socketPath: socket });
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (
        await second.ping().then(
          () => true,
          () => false,
        )
      )
        break;
      if (Date.now() > deadline) throw new Error('the second dockerd did not answer in 120 s');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    execFileSync('sh', ['-c', `docker save ${baseImageRef()} | docker -H unix://${socket} load`], {
      stdio: 'ignore',
    });
  }, 300_000);

  afterAll(async () => {
    if (daemon?.pid !== undefined) {
      daemon.kill('SIGTERM');
      await new Promise((resolve) => daemon?.once('exit', resolve));
    }
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it("leaves the main daemon's default bridge to it: a container there still starts", () => {
    const run = () =>
      execFileSync('docker', ['run', '--rm', '--network', 'bridge', baseImageRef(), 'true'], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    expect(run).not.toThrow();
  });

  it('images build --host finds the image loaded on the endpoint', async () => {
    const result = await runCommandCapturing(commands, ['images', 'build', '--host', `unix://${socket}`]);
    expect(result.stderr).toMatch(/^already present: sha256:/m);
    expect(result).toMatchObject({ code: 0, stdout: `${baseImageRef()}\n` });
  });

  it('creates the containers on the endpoint and none on the main daemon', async () => {
    const onDaemon = (docker: Docker) =>
      docker.listContainers({
        all: true,
        filters: JSON.stringify({ label: [`longhaul.run=${runOf('lh-endpoint')}`] }),
      });
    const env = environment({ host: `unix://${socket}`, firewall: false });
    expect(await env.check([{ id: 'docker-test', root: tmpdir(), environment: {} }])).toEqual([]);
    await withSandbox(env, spec('lh-endpoint'), async (sandbox) => {
      const result = await sandbox.exec(['sh', '-c', 'echo hi > note && cat note']);
      expect(result.stdout).toBe('hi\n');
      expect(await onDaemon(new Docker({ socketPath: socket }))).toHaveLength(1);
      expect(await onDaemon(new Docker())).toHaveLength(0);
    });
    expect(await onDaemon(new Docker({ socketPath: socket }))).toHaveLength(0);
  }, 300_000);
});

import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Sandbox, SandboxSpec } from '@longhaul/core';
import { describeEnvironment, FakeSnapshotStore } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEnvironment, localOptions } from '../src/index.js';
import { passableTemp } from './passable-temp.js';

const python = '/usr/bin/python3';

/** A python3 one-liner that GETs a URL and prints the body, or the error and exit 1. */
const fetchScript = `import sys, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())
except Exception as error:
    print("unreachable:", error); sys.exit(1)`;

/** Exit 0 when a TCP connection to host:port succeeds within 3 s. */
const connectScript = `import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3).close()
except Exception as error:
    print("refused:", error); sys.exit(1)`;

function readFileSyncOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function listen(server: Server | ReturnType<typeof createTcpServer>, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

describe.skipIf(!prerequisites.bubblewrap())('on a host with bubblewrap', () => {
  let base: string;
  let taskRoot: string;
  let runDir: string;
  const canary = `LONGHAUL_CANARY_${randomBytes(6).toString('hex')}`;
  const canaryValue = `canary-${randomBytes(8).toString('hex')}`;

  // Short names: a sandbox's relay sockets are in its folder, and a socket path past 107 bytes is
  // cut short, which the sandbox copes with only within the sockets' own names.
  const sandboxes = () => join(base, 's');

  const environment = () =>
    new LocalEnvironment(
      localOptions.parse({ isolation: 'bubblewrap', root: sandboxes() }),
      new FakeSnapshotStore(),
      base,
      runDir,
    );

  function spec(): SandboxSpec {
    return {
      runId: `hardened-${process.pid}`,
      trialId: 'task.oracle.checkpoints.none.r1',
      purpose: 'agent',
      task: { id: 'task', root: taskRoot, seed: join(taskRoot, 'seed') },
      needs: {},
    };
  }

  async function withSandbox(use: (sandbox: Sandbox) => Promise<void>): Promise<void> {
    const sandbox = await environment().open(spec());
    try {
      await use(sandbox);
    } finally {
      await sandbox.close();
    }
  }

  beforeAll(async () => {
    base = await passableTemp('lhb-');
    taskRoot = join(base, 'problems', 'task');
    runDir = join(base, 'runs', 'run-1');
    await mkdir(join(taskRoot, 'seed'), { recursive: true });
    await writeFile(join(taskRoot, 'seed', 'main.py'), 'print("hi")\n');
    await mkdir(join(taskRoot, 'steps', '01-first', 'cases', 'core'), { recursive: true });
    await writeFile(join(taskRoot, 'steps', '01-first', 'cases', 'core', 'hidden.yaml'), 'args: []\n');
    await mkdir(join(taskRoot, 'steps', '02-next', 'solution'), { recursive: true });
    await writeFile(join(taskRoot, 'steps', '02-next', 'solution', 'main.py'), 'print("answer")\n');
    await mkdir(runDir, { recursive: true });
    await writeFile(join(runDir, 'events.jsonl'), '{}\n');
    process.env[canary] = canaryValue;
  });

  afterAll(async () => {
    delete process.env[canary];
    await rm(base, { recursive: true, force: true });
  });

  describe('local environment, isolation: bubblewrap', () => {
    it("cannot read the runner's environment, through /proc or its own", async () => {
      await withSandbox(async (sandbox) => {
        const proc = await sandbox.exec(['cat', `/proc/${process.pid}/environ`]);
        expect(proc.exitCode).not.toBe(0);
        expect(proc.stdout).not.toContain(canaryValue);
        const all = await sandbox.exec(['sh', '-c', 'cat /proc/[0-9]*/environ; env; ls /proc']);
        expect(all.stdout).not.toContain(canaryValue);
        expect(all.stdout).not.toContain(canary);
        // Only the call's own processes are there: bwrap's init, the shell, and what it runs.
        const pids = all.stdout.split('\n').filter((line) => /^\d+$/.test(line));
        expect(pids.length).toBeLessThan(6);
      });
    });

    it("cannot see the task's hidden cases and reference solutions, the run directory or the runner's HOME", async () => {
      await withSandbox(async (sandbox) => {
        const hidden = [
          join(taskRoot, 'steps', '01-first', 'cases', 'core', 'hidden.yaml'),
          join(taskRoot, 'steps', '02-next', 'solution', 'main.py'),
          taskRoot,
          join(runDir, 'events.jsonl'),
          runDir,
          homedir(),
        ];
        for (const path of hidden) {
          const result = await sandbox.exec(['ls', '-d', path]);
          expect(result.exitCode, `${path} is visible in the sandbox`).not.toBe(0);
        }
      });
    });

    it("cannot see another sandbox's workspace, or the relay's sockets in its own folder", async () => {
      const other = await environment().open(spec());
      try {
        await other.writeFile('secret.txt', 'the other trial');
        await withSandbox(async (sandbox) => {
          const own = dirname(sandbox.workspace);
          for (const path of [
            join(other.workspace, 'secret.txt'),
            dirname(other.workspace),
            join(own, 'relay'),
          ]) {
            const result = await sandbox.exec(['ls', '-d', path]);
            expect(result.exitCode, `${path} is visible in the sandbox`).not.toBe(0);
          }
          const search = await sandbox.exec([
            'sh',
            '-c',
            'find /tmp "$HOME" . /dev /etc -name "*.sock" 2>/dev/null; true',
          ]);
          expect(search.stdout).not.toContain('.sock');
        });
      } finally {
        await other.close();
      }
    });

    it('can write only its workspace, its HOME and its own /tmp', async () => {
      const marker = `longhaul-hardened-${randomBytes(4).toString('hex')}`;
      await withSandbox(async (sandbox) => {
        for (const path of [
          `/usr/${marker}`,
          `/etc/${marker}`,
          join(homedir(), marker),
          join(taskRoot, marker),
        ]) {
          const result = await sandbox.exec(['sh', '-c', `echo x > ${path}`]);
          // Under /tmp a write lands in the sandbox's own /tmp, if anywhere: never on the host's.
          if (!path.startsWith('/tmp/')) expect(result.exitCode, `wrote ${path}`).not.toBe(0);
          expect(existsSync(path), `wrote ${path} on the host`).toBe(false);
        }
        const ok = await sandbox.exec([
          'sh',
          '-c',
          `echo w > made.txt && echo h > "$HOME/h" && echo t > /tmp/${marker}`,
        ]);
        expect(ok).toMatchObject({ exitCode: 0 });
        expect(Buffer.from(await sandbox.readFile('made.txt')).toString()).toBe('w\n');
        expect(existsSync(join(tmpdir(), marker)), "the sandbox's /tmp is the host's").toBe(false);
        expect((await sandbox.exec(['cat', `/tmp/${marker}`])).stdout, '/tmp lasts from call to call').toBe(
          't\n',
        );
      });
    });

    it('reaches the gateway at hostAddress and no other host port', async () => {
      await withSandbox(async (sandbox) => {
        expect(sandbox.hostAddress).toMatch(/^127\.(?!0\.0\.)\d+\.\d+\.\d+$/);
        const gateway = createServer((_, res) => res.end('gateway says hi'));
        const other = createServer((_, res) => res.end('other service'));
        const wildcard = createTcpServer((socket) => socket.end('wildcard'));
        try {
          const gatewayPort = await listen(gateway, sandbox.hostAddress);
          const otherPort = await listen(other, '127.0.0.1');
          const wildcardPort = await listen(wildcard, '0.0.0.0');
          const url = `http://${sandbox.hostAddress}:${gatewayPort}/v1/models`;
          const reached = await sandbox.exec([python, '-c', fetchScript, url]);
          expect(reached).toMatchObject({ exitCode: 0, stdout: 'gateway says hi\n' });
          for (const [host, port] of [
            ['127.0.0.1', otherPort],
            [sandbox.hostAddress, otherPort],
            [sandbox.hostAddress, wildcardPort],
            ['127.0.0.1', wildcardPort],
          ] as const) {
            const refused = await sandbox.exec([python, '-c', connectScript, host, String(port)]);
            expect(refused.exitCode, `reached host port ${host}:${port}`).not.toBe(0);
          }
        } finally {
          for (const server of [gateway, other, wildcard]) server.close();
        }
      });
    });

    it('runs commands started together while the gateway begins to listen', async () => {
      await withSandbox(async (sandbox) => {
        const gateway = createServer((_, res) => res.end('gateway says hi'));
        try {
          const url = `http://${sandbox.hostAddress}:${await listen(gateway, sandbox.hostAddress)}/`;
          // Each command asks the relay to carry the new port; they must share one answer.
          const calls = Promise.all([1, 2, 3].map(() => sandbox.exec([python, '-c', fetchScript, url])));
          const results = await Promise.race([
            calls,
            new Promise<never>((_, reject) => setTimeout(() => reject(new Error('a command hung')), 120_000)),
          ]);
          for (const result of results)
            expect(result).toMatchObject({ exitCode: 0, stdout: 'gateway says hi\n' });
        } finally {
          gateway.close();
        }
      });
    });

    it('fails a command with class sandbox, not a hang, once the network relay is gone', async () => {
      await withSandbox(async (sandbox) => {
        const gateway = createServer((_, res) => res.end('gateway says hi'));
        try {
          const relays = readdirSync('/proc')
            .filter((entry) => /^\d+$/.test(entry))
            .filter((pid) => {
              const argv = readFileSyncOrEmpty(`/proc/${pid}/cmdline`).split('\0');
              // node relay.mjs DIR (bwrap, its parent, names them too)
              return (
                argv[0] === process.execPath && argv[1]?.endsWith('relay.mjs') && argv[2]?.startsWith(base)
              );
            });
          // The relay of the sandbox before this one may still be dying: end them all.
          expect(relays.length).toBeGreaterThan(0);
          for (const pid of relays) {
            try {
              process.kill(Number(pid), 'SIGKILL');
            } catch {
              // Already gone.
            }
          }
          await listen(gateway, sandbox.hostAddress);
          await expect(sandbox.exec(['true'])).rejects.toMatchObject({
            errorClass: 'sandbox',
            message: expect.stringMatching(/relay exited/),
          });
        } finally {
          gateway.close();
        }
      });
    });

    it('exposes a server started inside on a host URL, and the server can be reached from inside', async () => {
      await withSandbox(async (sandbox) => {
        await sandbox.writeFile('index.html', 'served from the sandbox');
        const server = await sandbox.start([python, '-m', 'http.server', '8765', '--bind', '127.0.0.1']);
        const url = await sandbox.expose(8765);
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        // Until the server inside answers (python may take seconds to start on a busy machine),
        // for at most two minutes; fetch has no deadline of its own (undici waits 300 s for
        // headers), so each attempt gets 10 s.
        const deadline = Date.now() + 120_000;
        let body = '';
        let lastError = '';
        while (body === '' && Date.now() < deadline) {
          body = await fetch(`${url}/index.html`, { signal: AbortSignal.timeout(10_000) })
            .then((r) => r.text())
            .catch((error: Error) => {
              lastError = String(error.cause ?? error);
              return new Promise<string>((resolve) => setTimeout(() => resolve(''), 200));
            });
        }
        const { stdout, stderr } = server.output();
        expect(body, `no answer (${lastError}); the server said: ${stdout}${stderr}`).toBe(
          'served from the sandbox',
        );
        const inside = await sandbox.exec([python, '-c', fetchScript, 'http://127.0.0.1:8765/index.html']);
        expect(inside.stdout).toBe('served from the sandbox\n');
        await server.kill();
      });
    });

    it('ends whatever a command left running when it returns, and started processes at sweep', async () => {
      await withSandbox(async (sandbox) => {
        const detached = await sandbox.exec([
          'sh',
          '-c',
          'setsid -f sh -c "sleep 3; echo late > late.txt"; nohup sh -c "sleep 3; echo nohup > nohup.txt" >/dev/null 2>&1 & echo started',
        ]);
        expect(detached).toMatchObject({ exitCode: 0, stdout: 'started\n' });
        const server = await sandbox.start(['sh', '-c', 'sleep 3; echo bg > bg.txt']);
        await (sandbox as Sandbox & { sweep(): Promise<void> }).sweep();
        await server.wait();
        await new Promise((resolve) => setTimeout(resolve, 3_500));
        expect((await sandbox.list()).map((e) => e.path)).toEqual(['main.py']);
      });
    });

    it('runs commands as an unprivileged agent, or as root of its own namespace when asked', async () => {
      await withSandbox(async (sandbox) => {
        expect((await sandbox.exec(['id', '-un'])).stdout.trim()).toBe('agent');
        expect((await sandbox.exec(['id', '-u'], { user: 'root' })).stdout.trim()).toBe('0');
        // root of the namespace holds no power over the host's files
        expect((await sandbox.exec(['touch', '/usr/bin/longhaul-x'], { user: 'root' })).exitCode).not.toBe(0);
      });
    });

    it('refuses a mount that would show the task root or the run directory', async () => {
      for (const mount of [join(base, 'problems'), taskRoot, join(taskRoot, 'steps'), runDir]) {
        const env = new LocalEnvironment(
          localOptions.parse({ isolation: 'bubblewrap', root: sandboxes(), mounts: [mount] }),
          new FakeSnapshotStore(),
          base,
          runDir,
        );
        await expect(env.open(spec())).rejects.toMatchObject({
          errorClass: 'sandbox',
          message: expect.stringMatching(/would make .* visible to the agent/),
        });
      }
    });

    it('shows the mounts read-only at their path or the one given', async () => {
      const tools = join(base, 'tools');
      await mkdir(tools);
      await writeFile(join(tools, 'tool.sh'), 'echo tool ran\n');
      const env = new LocalEnvironment(
        localOptions.parse({
          isolation: 'bubblewrap',
          root: sandboxes(),
          mounts: ['tools', `tools:/opt/t`],
        }),
        new FakeSnapshotStore(),
        base,
        runDir,
      );
      const sandbox = await env.open(spec());
      try {
        expect((await sandbox.exec(['sh', join(tools, 'tool.sh')])).stdout).toBe('tool ran\n');
        expect((await sandbox.exec(['sh', '/opt/t/tool.sh'])).stdout).toBe('tool ran\n');
        expect((await sandbox.exec(['touch', join(tools, 'x')])).exitCode).not.toBe(0);
      } finally {
        await sandbox.close();
      }
    });
  });

  describeEnvironment(
    'local (isolation: bubblewrap)',
    (snapshots) =>
      new LocalEnvironment(
        localOptions.parse({ isolation: 'bubblewrap', maxFileSize: '16m', disk: '64m' }),
        snapshots,
      ),
    // Two files at maxFileSize (the large-file check's) stay under the disk limit.
    {
      maxFileBytes: 16 * 1024 * 1024,
      containment: true,
      host: true,
      limits: { diskBytes: 64 * 1024 * 1024 },
    },
  );
});

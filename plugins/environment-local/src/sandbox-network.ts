import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chown, copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { endianness } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClassifiedError } from '@longhaul/core';
import { readPortHeader, splice } from '../relay/socket-pipe.mjs';
import { helperMounts } from './bubblewrap.js';
import { type SandboxUser, unreachableFolder } from './sandbox-user.js';

const relayScript = fileURLToPath(new URL('../relay/relay.mjs', import.meta.url));
const relayFiles = ['relay.mjs', 'socket-pipe.mjs'];
/** Generous: on a busy machine starting node in new namespaces can take seconds. */
const readyTimeoutMs = 30_000;

/**
 * The loopback address a hardened sandbox of this run reaches the host by, e.g. 127.83.20.7: one
 * per run, never 127.0.0.x, so the only host listeners there are the ones the run's gateway opens
 * for its sandboxes (the gateway binds to a sandbox's `hostAddress`).
 */
export function runHostAddress(runId: string): string {
  const [a = 0, b = 0, c = 0] = createHash('sha256').update(runId).digest();
  return `127.${(a % 254) + 1}.${b}.${(c % 254) + 1}`;
}

/** `127.1.2.3` as /proc/net/tcp writes it (the address word in the host's byte order). */
function procAddress(address: string): string {
  const octets = address.split('.').map((o) => Number(o).toString(16).padStart(2, '0').toUpperCase());
  return (endianness() === 'LE' ? octets.reverse() : octets).join('');
}

/** TCP ports a process of the host (the runner's network namespace) listens on at `address`. */
export async function hostListeners(address: string): Promise<number[]> {
  const table = await readFile('/proc/net/tcp', 'utf8').catch(() => '');
  const wanted = procAddress(address);
  const ports: number[] = [];
  for (const line of table.split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    const [ip, port] = (local ?? '').split(':');
    if (state === '0A' && ip === wanted && port) ports.push(Number.parseInt(port, 16));
  }
  return ports;
}

/**
 * The network namespace of a hardened sandbox: held by a relay process (relay.mjs) that bwrap
 * starts in a new user and network namespace; every command enters it (see bubblewrap.ts). Only
 * loopback exists inside. The relay carries connections to the host address to the runner, which
 * lets through only ports a host process serves at that address (the model gateway), and carries
 * `expose`d ports out to the host's loopback.
 */
export class SandboxNetwork {
  /** Host ports the relay listens for inside; the runner lets connections through to these only. */
  private readonly relayed = new Set<number>();
  /** The relay's answer to `listen`, one request per port however many calls wait for it. */
  private readonly relaying = new Map<number, Promise<void>>();
  private readonly pending = new Map<number, (error?: string) => void>();
  /** Why the relay can no longer answer (it exited, or the sandbox closed). */
  private gone: string | undefined;
  private readonly exposed = new Map<number, Promise<string>>();
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly dir: string,
    readonly hostAddress: string,
    private readonly relay: ChildProcess,
    /** Host pid of the relay: `nsenter --target` joins its namespaces. */
    readonly pid: number,
  ) {
    let buffered = '';
    relay.stdout?.setEncoding('utf8');
    relay.stdout?.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const [verb, port, ...reason] = buffered.slice(0, end).split(' ');
        buffered = buffered.slice(end + 1);
        this.pending.get(Number(port))?.(verb === 'ok' ? undefined : reason.join(' '));
      }
    });
    // A relay that died answers nothing: every call waiting for it fails instead of hanging, and
    // writing to it must not fail the runner.
    relay.stdin?.on('error', () => undefined);
    relay.once('exit', (code, signal) => this.end(`the relay exited (${signal ?? `code ${code}`})`));
  }

  private end(why: string): void {
    this.gone ??= why;
    for (const settle of this.pending.values()) settle(this.gone);
  }

  /**
   * Starts the relay in a new user and network namespace, as `user` where the sandbox has a host
   * user of its own (its commands then join the namespace as that user: see bubblewrap.ts). Its
   * program is copied next to `dir`, so it runs wherever this package is installed (a folder of
   * root's that the sandbox's user cannot enter, say); node itself must be reachable.
   */
  static async open(
    dir: string,
    hostAddress: string,
    bwrap: string,
    user?: SandboxUser,
  ): Promise<SandboxNetwork> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    let program = dirname(relayScript);
    if (user) {
      const blocked = unreachableFolder(dirname(process.execPath));
      if (blocked !== undefined)
        throw new ClassifiedError(
          'sandbox',
          `isolation: bubblewrap: the sandbox's user (uid ${user.uid}) cannot run node at ${process.execPath}: ${blocked} is closed to other users; install node where every user can run it (e.g. /usr/local/bin)`,
        );
      await chown(dir, user.uid, user.gid);
      program = join(dirname(dir), 'relay-program');
      await mkdir(program, { recursive: true, mode: 0o755 });
      for (const file of relayFiles) await copyFile(join(dirname(relayScript), file), join(program, file));
    }
    const relay = spawn(
      bwrap,
      [
        '--unshare-user',
        // Root of its namespace, so that namespace owns the network one: bwrap run by another uid
        // would put the network namespace under an intermediate user namespace no command can join.
        '--uid',
        '0',
        '--gid',
        '0',
        '--unshare-net',
        '--die-with-parent',
        ...helperMounts([dirname(process.execPath), program]),
        '--bind',
        dir,
        dir,
        '--',
      ].concat(process.execPath, join(program, basename(relayScript)), dir),
      // A session of its own, as the sandbox's commands have: a terminal's Ctrl-C reaches the
      // runner alone and does not cut the sandboxes' network mid-step (--die-with-parent still
      // ends the relay with the runner).
      {
        env: { PATH: '/usr/bin:/bin' },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      },
    );
    let stderr = '';
    relay.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const pid = await new Promise<number>((resolve, reject) => {
      const fail = (why: string) => {
        relay.kill('SIGKILL');
        reject(
          new ClassifiedError(
            'sandbox',
            `isolation: bubblewrap: bwrap could not start the sandbox's network namespace (${why}); the host needs unprivileged user namespaces (sysctl user.max_user_namespaces > 0, and kernel.unprivileged_userns_clone=1 where it exists)`,
          ),
        );
      };
      const timer = setTimeout(() => fail(`no answer within ${readyTimeoutMs} ms`), readyTimeoutMs);
      relay.once('error', (error) => {
        clearTimeout(timer);
        fail(error.message);
      });
      relay.once('exit', (code) => {
        clearTimeout(timer);
        fail(stderr.trim() || `bwrap exited with ${code}`);
      });
      relay.stdout?.once('data', (chunk: Buffer) => {
        clearTimeout(timer);
        const match = /^ready (\d+)/.exec(chunk.toString('utf8'));
        if (match) resolve(Number(match[1]));
        else fail(`unexpected output: ${chunk.toString('utf8').trim()}`);
      });
    });
    relay.removeAllListeners('exit');
    const network = new SandboxNetwork(dir, hostAddress, relay, pid);
    await network.serveHost();
    // The relay connects to the runner's socket as the sandbox's user. The socket is where bind(2)
    // put it: this Node's libuv cuts a path longer than sun_path, and the relay's connect cuts it the
    // same way, so the file is the one in `dir` whose name starts `host.sock`.
    if (user) {
      const entries = await readdir(dir, { withFileTypes: true });
      const socket = entries.find((e) => e.isSocket() && 'host.sock'.startsWith(e.name));
      if (socket) await chown(join(dir, socket.name), user.uid, user.gid);
    }
    return network;
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    return socket;
  }

  private async listen(server: Server, ...args: unknown[]): Promise<void> {
    this.servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      (server.listen as (...a: unknown[]) => void)(...args, () => resolve());
    });
  }

  /** The runner's end of inbound connections: only to ports served at the host address. */
  private serveHost(): Promise<void> {
    const server = createServer((socket) => {
      this.track(socket);
      readPortHeader(socket, (port, rest) => {
        if (!this.relayed.has(port)) {
          socket.destroy();
          return;
        }
        splice(socket, this.track(createConnection({ host: this.hostAddress, port })), rest);
      });
    });
    return this.listen(server, join(this.dir, 'host.sock'));
  }

  /** Makes every port a host process serves at the host address reachable inside (the gateway). */
  async sync(): Promise<void> {
    const ports = await hostListeners(this.hostAddress);
    await Promise.all(ports.map((port) => this.relayPort(port)));
  }

  private relayPort(port: number): Promise<void> {
    let answer = this.relaying.get(port);
    if (answer) return answer;
    answer = new Promise<void>((resolve, reject) => {
      const settle = (error?: string) => {
        clearTimeout(timer);
        this.pending.delete(port);
        if (error === undefined) {
          this.relayed.add(port);
          resolve();
          return;
        }
        // A later call asks again.
        this.relaying.delete(port);
        reject(
          new ClassifiedError(
            'sandbox',
            `cannot relay ${this.hostAddress}:${port} into the sandbox: ${error}`,
          ),
        );
      };
      const timer = setTimeout(
        () => settle(`no answer from the relay within ${readyTimeoutMs} ms`),
        readyTimeoutMs,
      );
      if (this.gone) {
        settle(this.gone);
        return;
      }
      this.pending.set(port, settle);
      this.relay.stdin?.write(`listen ${this.hostAddress} ${port}\n`);
    });
    this.relaying.set(port, answer);
    return answer;
  }

  /** A URL on the host's loopback that reaches `port` on the sandbox's loopback. */
  expose(port: number): Promise<string> {
    let url = this.exposed.get(port);
    if (!url) {
      const server = createServer((socket) => {
        this.track(socket);
        socket.pause();
        const inner = this.track(createConnection({ path: join(this.dir, 'expose.sock') }));
        inner.write(`${port}\n`);
        splice(socket, inner);
      });
      url = this.listen(server, 0, '127.0.0.1').then(() => {
        const address = server.address();
        return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      });
      this.exposed.set(port, url);
    }
    return url;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.map((server) => new Promise((resolve) => server.close(resolve))));
    this.end('the sandbox closed');
    this.relay.stdin?.end();
    this.relay.kill('SIGKILL');
  }
}

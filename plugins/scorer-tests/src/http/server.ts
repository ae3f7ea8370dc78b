import { setTimeout as sleep } from 'node:timers/promises';
import type { ExecResult, HttpCase, Sandbox, SandboxProcess } from '@longhaul/core';
import { portPlaceholder } from '@longhaul/core';
import { heldOnHost, portOpen, saysPortInUse, sharesHostPort } from './free-port.js';

export interface RunningServer {
  baseUrl: string;
  process: SandboxProcess;
  /** Settles when the server process ends. */
  exited: Promise<ExecResult>;
}

export interface StartOptions {
  entrypoint: string[];
  port: number;
  signal: AbortSignal;
}

const pollMs = 50;

function tail(text: string): string {
  const last = text.trim().split('\n').slice(-3).join(' | ');
  return last.length > 200 ? `${last.slice(0, 197)}...` : last;
}

/** Whether a GET of `url` gets an HTTP answer (below 500 unless `anyStatus`). */
async function answers(url: string, anyStatus = false): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return anyStatus || response.status < 500;
  } catch {
    return false;
  }
}

/** Why a server is not usable, as a sentence (undefined once it is ready). */
export class ServerNotReady extends Error {
  constructor(
    message: string,
    /**
     * Set when the server exited saying its port was in use; `onHost` when another process of the
     * host really holds it (the sandbox shares the host's loopback and the port is taken there).
     */
    readonly portInUse?: { port: number; onHost: boolean },
  ) {
    super(message);
  }
}

/**
 * Starts the solution's server from the entrypoint (port in env PORT and in place of `{port}` in
 * the case's argv) and waits until it accepts connections, and answers `ready.path` when given.
 * Throws ServerNotReady when it exits first or is not ready in time; the process is then stopped.
 */
export async function startServer(
  sandbox: Sandbox,
  server: HttpCase['server'],
  options: StartOptions,
): Promise<RunningServer> {
  const argv = server.argv.map((arg) => arg.replaceAll(portPlaceholder, String(options.port)));
  const process = await sandbox.start([...options.entrypoint, ...argv], {
    env: { ...server.env, PORT: String(options.port) },
    signal: options.signal,
  });
  let ended: ExecResult | undefined;
  const exited = process.wait().then((result) => {
    ended = result;
    return result;
  });
  const baseUrl = (await sandbox.expose(options.port)).replace(/\/$/, '');
  // Where the host reaches the server: an environment that relays it (bubblewrap) gives a port of
  // its own, so readiness is probed at the exposed address, not at the sandbox's port.
  const exposed = new URL(baseUrl);
  const hostPort = Number(exposed.port || (exposed.protocol === 'https:' ? 443 : 80));
  const deadline = Date.now() + server.ready.timeoutMs;
  while (!options.signal.aborted) {
    if (ended) {
      const { stdout, stderr } = process.output();
      const message = `server exited with code ${ended.exitCode} before it was ready${stderr.trim() ? `: ${tail(stderr)}` : ''}`;
      if (!saysPortInUse(`${stderr}\n${stdout}`)) throw new ServerNotReady(message);
      const onHost = sharesHostPort(baseUrl, options.port) && (await heldOnHost(options.port));
      throw new ServerNotReady(message, { port: options.port, onHost });
    }
    // A relay (bubblewrap's) accepts connections before the server listens behind it: there an
    // HTTP answer of any status to GET / is what says the server is up.
    const ready =
      (await portOpen(exposed.hostname, hostPort)) &&
      (server.ready.path !== undefined
        ? await answers(`${baseUrl}${server.ready.path}`)
        : hostPort === options.port || (await answers(`${baseUrl}/`, true)));
    // A server that failed to bind may end while another process answers on its port: it is not ready.
    if (ready && !ended) return { baseUrl, process, exited };
    if (Date.now() > deadline) {
      await process.kill();
      const what = server.ready.path
        ? `answer ${server.ready.path}`
        : `accept connections on port ${options.port}`;
      throw new ServerNotReady(`server did not ${what} within ${server.ready.timeoutMs} ms`);
    }
    await sleep(pollMs);
  }
  await process.kill();
  options.signal.throwIfAborted();
  throw new ServerNotReady('aborted');
}

/** Stops the server and waits for its process to end. */
export async function stopServer(server: RunningServer): Promise<void> {
  await server.process.kill();
  await server.exited.catch(() => undefined);
}

import { connect, createServer } from 'node:net';

/** Whether something accepts TCP connections at host:port (within half a second). */
export function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Ports handed to servers of this process that have not been given back yet. */
const leased = new Set<number>();

function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A TCP port nothing listens on right now, kept for one server until `release`. Each HTTP case
 * gets its own, so cases running at once in sandboxes that share the host's network (the local
 * environment) do not collide: a port the system frees between the probe and the server's bind
 * could otherwise go to two cases started at the same moment.
 */
export async function leasePort(): Promise<{ port: number; release(): void }> {
  for (;;) {
    const port = await unusedPort();
    if (leased.has(port)) continue;
    leased.add(port);
    return { port, release: () => leased.delete(port) };
  }
}

/**
 * Whether another process holds `port` on the host's loopback: something accepts connections
 * there, or it cannot be bound. Asked after a server said its port was in use, to tell a port
 * taken between the lease and the server's bind from a program that only claims so.
 */
export async function heldOnHost(port: number): Promise<boolean> {
  if (await portOpen('127.0.0.1', port)) return true;
  return new Promise<boolean>((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE'));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

/** How servers say their port is taken: Python's OSError (Errno 98), Node's EADDRINUSE, Go's bind error. */
const addressInUse = /address already in use|EADDRINUSE/i;

/** Whether a server's output says it could not bind its port. */
export function saysPortInUse(output: string): boolean {
  return addressInUse.test(output);
}

const loopback = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether the environment exposed `port` as is on the host's loopback (the plain local one): there
 * the port is the host's own, and another process may bind it between the lease and the server.
 */
export function sharesHostPort(baseUrl: string, port: number): boolean {
  const url = new URL(baseUrl);
  return loopback.has(url.hostname) && Number(url.port || 80) === port;
}

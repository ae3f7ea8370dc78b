import { createServer } from 'node:net';

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

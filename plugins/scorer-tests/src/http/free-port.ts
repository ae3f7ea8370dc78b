import { createServer } from 'node:net';

/**
 * A TCP port nothing listens on right now. Each HTTP case gets its own, so cases running at once
 * in sandboxes that share the host's network (the local environment) do not collide.
 */
export function freePort(): Promise<number> {
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

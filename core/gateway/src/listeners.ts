import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { ClassifiedError } from '@longhaul/core';

/**
 * The gateway's sockets: one on the loopback address, plus one per address a sandbox reaches the
 * host by (a docker bridge gateway). Wildcard addresses are refused: a port bound on 0.0.0.0 is
 * reachable from every container and network.
 */
export class Listeners {
  private readonly servers = new Map<string, { server: Server; port: number }>();

  constructor(private readonly handler: (req: IncomingMessage, res: ServerResponse) => void) {}

  /** Listens on `address` (once) and returns the base URL it is reached by. */
  async listen(address: string, port = 0): Promise<string> {
    const ip = isIP(address) ? address : (await lookup(address)).address;
    if (ip === '0.0.0.0' || ip === '::' || ip === '::0')
      throw new ClassifiedError('internal', `the gateway never listens on a wildcard address (${address})`);
    const existing = this.servers.get(ip);
    if (existing) return baseUrl(address, existing.port);
    const server = createServer(this.handler);
    server.keepAliveTimeout = 30_000;
    // Agents hold streams open for minutes; the per-request timeouts of node's server would cut them.
    server.requestTimeout = 0;
    server.headersTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new ClassifiedError(
            'internal',
            `the model gateway cannot listen on ${address}:${port || '(any port)'}: ${error.code ?? error.message}` +
              (error.code === 'EADDRNOTAVAIL'
                ? ' (no network interface has this address; is the sandbox network up?)'
                : ''),
            { cause: error },
          ),
        ),
      );
      server.listen(port, ip, () => resolve());
    });
    const bound = server.address();
    const actual = typeof bound === 'object' && bound ? bound.port : port;
    this.servers.set(ip, { server, port: actual });
    return baseUrl(address, actual);
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.servers.values()].map(
        ({ server }) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
    this.servers.clear();
  }
}

function baseUrl(address: string, port: number): string {
  return `http://${isIP(address) === 6 ? `[${address}]` : address}:${port}`;
}

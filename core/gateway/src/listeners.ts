import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { ClassifiedError } from '@longhaul/core';

interface Bound {
  server: Server;
  port: number;
}

/**
 * The gateway's sockets: one on the loopback address, plus one per address a sandbox reaches the
 * host by (a docker bridge gateway). Wildcard addresses are refused: a port bound on 0.0.0.0 is
 * reachable from every container and network.
 */
export class Listeners {
  /** By IP; a promise so that trials asking for the same new address at once share one socket. */
  private readonly servers = new Map<string, Promise<Bound>>();

  constructor(private readonly handler: (req: IncomingMessage, res: ServerResponse) => void) {}

  /** Listens on `address` (once) and returns the base URL it is reached by. */
  async listen(address: string, port = 0): Promise<string> {
    const ip = isIP(address) ? address : (await lookup(address)).address;
    if (ip === '0.0.0.0' || ip === '::' || ip === '::0')
      throw new ClassifiedError('internal', `the gateway never listens on a wildcard address (${address})`);
    let bound = this.servers.get(ip);
    if (!bound) {
      bound = this.bind(address, ip, port);
      this.servers.set(ip, bound);
      bound.catch(() => this.servers.delete(ip));
    }
    return baseUrl(address, (await bound).port);
  }

  private async bind(address: string, ip: string, port: number): Promise<Bound> {
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
    const info = server.address();
    return { server, port: typeof info === 'object' && info ? info.port : port };
  }

  async close(): Promise<void> {
    const bound = await Promise.allSettled(this.servers.values());
    this.servers.clear();
    await Promise.all(
      bound.map((result) =>
        result.status === 'fulfilled'
          ? new Promise<void>((resolve) => {
              result.value.server.close(() => resolve());
              result.value.server.closeAllConnections();
            })
          : undefined,
      ),
    );
  }
}

function baseUrl(address: string, port: number): string {
  return `http://${isIP(address) === 6 ? `[${address}]` : address}:${port}`;
}

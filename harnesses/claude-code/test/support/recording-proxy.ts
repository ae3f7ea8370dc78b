import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Harness, ModelGateway, Sandbox, Session, SessionOptions } from '@longhaul/core';

/** A pass-through HTTP proxy that keeps every request body, to see what an agent sends. */
export class RecordingProxy {
  readonly bodies: string[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<RecordingProxy> {
    let proxy: RecordingProxy | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const body = Buffer.concat(chunks).toString();
        proxy?.bodies.push(body);
        const headers = Object.fromEntries(
          Object.entries(request.headers).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
          ),
        );
        const upstream = await fetch(`${target}${request.url}`, {
          method: request.method,
          headers,
          body: body || undefined,
        });
        response.writeHead(upstream.status, {
          'content-type': upstream.headers.get('content-type') ?? 'text/plain',
        });
        response.end(Buffer.from(await upstream.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    proxy = new RecordingProxy(server, `http://127.0.0.1:${port}`);
    return proxy;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Opens a session whose model traffic goes through a recording proxy in front of the gateway's
 * endpoint for the trial; the caller closes the proxy.
 */
export async function proxiedSession(
  harness: Harness,
  gateway: ModelGateway,
  sandbox: Sandbox,
  options: Omit<SessionOptions, 'model'>,
): Promise<{ session: Session; proxy: RecordingProxy }> {
  const endpoint = await gateway.endpoint(options.trialId, sandbox.hostAddress);
  const proxy = await RecordingProxy.start(endpoint.baseUrl);
  const session = await harness.openSession(sandbox, {
    ...options,
    model: { ...endpoint, baseUrl: proxy.url },
  });
  return { session, proxy };
}

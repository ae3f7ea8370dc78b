import { readFileSync } from 'node:fs';
import { ClassifiedError } from '@longhaul/core';
import Docker from 'dockerode';
import { z } from 'zod';

/** TLS files for a `tcp://` endpoint, as `docker --tlsverify` takes them. */
export const tlsOption = z
  .object({
    ca: z.string().min(1).describe('CA certificate the daemon is verified against.'),
    cert: z.string().min(1).describe('Client certificate.'),
    key: z.string().min(1).describe("Client certificate's key."),
  })
  .strict();

export type TlsFiles = z.output<typeof tlsOption>;

/** A `DOCKER_HOST`-style address: unix:///path.sock, tcp://host:port or ssh://user@host. */
export const endpointOption = z
  .string()
  .regex(/^(unix:\/\/\/.+|tcp:\/\/[^/:]+:\d+|ssh:\/\/([^@/]+@)?[^/:]+(:\d+)?)$/, {
    message: 'a Docker endpoint: unix:///path.sock, tcp://host:port or ssh://user@host',
  });

/** Whether containers of this endpoint run on this machine (so /proc and iptables here see them). */
export function isLocalEndpoint(endpoint: string | undefined): boolean {
  return endpoint === undefined || endpoint.startsWith('unix://');
}

/** The one place a Docker client is built: the default daemon, or an endpoint of the `host` option. */
export function dockerClient(endpoint?: string, tls?: TlsFiles): Docker {
  if (endpoint === undefined) return new Docker();
  const url = new URL(endpoint);
  if (url.protocol === 'unix:') return new Docker({ socketPath: url.pathname });
  if (url.protocol === 'ssh:')
    return new Docker({
      protocol: 'ssh',
      host: url.hostname,
      port: url.port === '' ? 22 : Number(url.port),
      username: url.username === '' ? undefined : decodeURIComponent(url.username),
    });
  const port = Number(url.port);
  if (tls === undefined) return new Docker({ protocol: 'http', host: url.hostname, port });
  const read = (path: string, key: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ClassifiedError('sandbox', `docker option tls.${key}: cannot read ${path}`, { cause: error });
    }
  };
  return new Docker({
    protocol: 'https',
    host: url.hostname,
    port,
    ca: read(tls.ca, 'ca'),
    cert: read(tls.cert, 'cert'),
    key: read(tls.key, 'key'),
  });
}

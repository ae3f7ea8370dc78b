import { ToolRefusal } from './policy.js';
import type { ToolContext } from './tool.js';

const localHosts = new Set(['localhost', '127.0.0.1', '0.0.0.0', '[::1]', '::1']);

/**
 * The host-side URL reaching a server inside the sandbox. Only the sandbox's own servers are
 * reachable: tools never give the agent a way out to other hosts.
 */
export async function sandboxUrl(ctx: ToolContext, url: string, base: string): Promise<URL> {
  let target: URL;
  try {
    target = new URL(url, base);
  } catch {
    throw new ToolRefusal(`not a URL: ${url}`);
  }
  if (!localHosts.has(target.hostname))
    throw new ToolRefusal(`${target.host} is not a server in the sandbox; only localhost URLs are reachable`);
  const defaultPort = target.protocol === 'https:' || target.protocol === 'wss:' ? 443 : 80;
  const port = Number(target.port || defaultPort);
  const exposed = new URL(await ctx.sandbox.expose(port));
  target.hostname = exposed.hostname;
  target.port = exposed.port;
  return target;
}

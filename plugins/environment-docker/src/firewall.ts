import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** iptables chains this package made carry this prefix, so prune can find them. */
export const chainPrefix = 'LONGHAUL-';

/** The chain that guards the network with this id. */
export function chainOf(networkId: string): string {
  return `${chainPrefix}${networkId.slice(0, 12)}`;
}

export async function iptables(...args: string[]): Promise<string> {
  const { stdout } = await run('iptables', ['-w', ...args]);
  return stdout;
}

async function succeeds(...args: string[]): Promise<boolean> {
  try {
    await iptables(...args);
    return true;
  } catch {
    return false;
  }
}

/** `172.18.0.1` as /proc/net/tcp writes it (little-endian hex). */
function procAddress(ip: string): string {
  return ip
    .split('.')
    .reverse()
    .map((octet) => Number(octet).toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
}

/** TCP ports a host process listens on at exactly `ip` (not on every address). */
export async function listenersOn(ip: string): Promise<number[]> {
  const table = await readFile('/proc/net/tcp', 'utf8');
  const wanted = procAddress(ip);
  const ports = new Set<number>();
  for (const line of table.split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    const [address, port] = (local ?? '').split(':');
    if (state === '0A' && address === wanted && port !== undefined) ports.add(Number.parseInt(port, 16));
  }
  return [...ports].sort((a, b) => a - b);
}

/**
 * What a sandbox on a run network may reach on the host: TCP to the bridge's gateway address, on
 * ports a host process serves at that address itself (the model gateway binds there) or that are
 * listed. Everything else that enters the host from the bridge is refused, including services
 * listening on all addresses. The rules live in a chain of their own, jumped to from INPUT.
 */
export class HostFirewall {
  readonly chain: string;
  private readonly allowed = new Set<number>();
  private updating: Promise<void> = Promise.resolve();

  constructor(
    networkId: string,
    private readonly bridge: string,
    private readonly gateway: string,
    private readonly extraPorts: readonly number[],
    /** The network is internal: traffic it forwards anywhere is refused here too, at once. */
    private readonly internal: boolean,
  ) {
    this.chain = chainOf(networkId);
  }

  private portRule(port: number): string[] {
    return [this.chain, '-p', 'tcp', '-d', this.gateway, '--dport', String(port), '-j', 'ACCEPT'];
  }

  async install(): Promise<void> {
    if (await succeeds('-N', this.chain)) {
      await iptables('-A', this.chain, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT');
      await iptables('-A', this.chain, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset');
      await iptables('-A', this.chain, '-j', 'REJECT', '--reject-with', 'icmp-port-unreachable');
    }
    const jumps = [['INPUT', '-i', this.bridge, '-j', this.chain]];
    // Docker already drops what an internal network sends out; refusing it makes a connect fail
    // at once instead of hanging until its timeout.
    if (this.internal)
      jumps.push(['DOCKER-USER', '-i', this.bridge, '!', '-o', this.bridge, '-j', this.chain]);
    for (const jump of jumps) if (!(await succeeds('-C', ...jump))) await iptables('-I', ...jump);
    await this.refresh();
  }

  /** Opens ports newly served at the gateway address and closes those no longer served. */
  refresh(): Promise<void> {
    // Commands start concurrently; one update at a time keeps the rules free of duplicates.
    this.updating = this.updating.then(
      () => this.update(),
      () => this.update(),
    );
    return this.updating;
  }

  private async update(): Promise<void> {
    const wanted = new Set([...(await listenersOn(this.gateway)), ...this.extraPorts]);
    for (const port of wanted) {
      if (this.allowed.has(port)) continue;
      const [chain, ...rule] = this.portRule(port);
      if (!(await succeeds('-C', chain as string, ...rule)))
        await iptables('-I', chain as string, '1', ...rule);
      this.allowed.add(port);
    }
    for (const port of this.allowed) {
      if (wanted.has(port)) continue;
      while (await succeeds('-D', ...this.portRule(port))) {}
      this.allowed.delete(port);
    }
  }

  async remove(): Promise<void> {
    await removeChain(this.chain);
  }
}

/** Deletes a chain and every rule that jumps to it. */
export async function removeChain(chain: string): Promise<void> {
  for (const from of ['INPUT', 'DOCKER-USER']) {
    const rules = await iptables('-S', from).catch(() => '');
    for (const rule of rules.split('\n')) {
      if (rule.startsWith(`-A ${from} `) && rule.endsWith(`-j ${chain}`))
        await succeeds('-D', ...rule.slice(3).split(' '));
    }
  }
  await succeeds('-F', chain);
  await succeeds('-X', chain);
}

/** Names of the chains this package made that are still installed. */
export async function installedChains(): Promise<string[]> {
  const rules = await iptables('-S').catch(() => '');
  return rules
    .split('\n')
    .filter((line) => line.startsWith(`-N ${chainPrefix}`))
    .map((line) => line.slice(3).trim());
}

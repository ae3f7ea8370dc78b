import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type HardenedPaths,
  hardenedArgv,
  identityFiles,
  type ReadOnlyMount,
  startFailureCode,
} from './bubblewrap.js';
import { framedArgv } from './command-wrapper.js';
import type { Containment } from './containment.js';
import type { SandboxControls } from './sandbox-controls.js';
import { SandboxNetwork } from './sandbox-network.js';

/**
 * isolation: bubblewrap. Each call is its own PID namespace (what it leaves running dies when it
 * ends); all calls share the sandbox's network namespace, where only the gateway is reachable.
 * The sandbox's controls (its user, cgroups and limits) frame the whole nsenter and bwrap chain.
 */
export class HardenedContainment implements Containment {
  private constructor(
    private readonly tools: { bwrap: string; nsenter: string },
    private readonly network: SandboxNetwork,
    private readonly paths: HardenedPaths,
    private readonly mounts: readonly ReadOnlyMount[],
    readonly controls: SandboxControls,
  ) {}

  static async open(options: {
    tools: { bwrap: string; nsenter: string };
    root: string;
    paths: HardenedPaths;
    mounts: readonly ReadOnlyMount[];
    hostAddress: string;
    controls: SandboxControls;
  }): Promise<HardenedContainment> {
    const identity = identityFiles(options.paths.home);
    await writeFile(join(options.paths.etc, 'passwd'), identity.passwd);
    await writeFile(join(options.paths.etc, 'group'), identity.group);
    const network = await SandboxNetwork.open(
      join(options.root, 'relay'),
      options.hostAddress,
      options.tools.bwrap,
      options.controls.user,
    );
    return new HardenedContainment(options.tools, network, options.paths, options.mounts, options.controls);
  }

  get hostAddress(): string {
    return this.network.hostAddress;
  }

  async command(
    argv: string[],
    env: Record<string, string>,
    options: { call: number; cwd: string; user: 'agent' | 'root' },
  ) {
    // The gateway may have started listening at the host address since the last call.
    await this.network.sync();
    const hardened = hardenedArgv({
      tools: this.tools,
      networkPid: this.network.pid,
      paths: this.paths,
      mounts: this.mounts,
      user: options.user,
      cwd: options.cwd,
      argv,
    });
    return { argv: framedArgv(hardened, await this.controls.frame(options.call), env), env };
  }

  /** The call's PID namespace died with it; its cgroup, where it has one, goes too. */
  async afterCall(call: number): Promise<void> {
    await this.controls.endCall(call);
  }

  /** Started processes are stopped by the sandbox; nothing else outlives its call. */
  async sweep(): Promise<void> {}

  expose(port: number): Promise<string> {
    return this.network.expose(port);
  }

  startFailure(exitCode: number | null, stderr: string): number | undefined {
    return startFailureCode(exitCode, stderr);
  }

  async close(): Promise<void> {
    await this.network.close();
    await this.controls.close();
  }
}

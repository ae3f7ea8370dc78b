import { framedArgv } from './command-wrapper.js';
import { killMarked, markVariable, trackOpen } from './process-marks.js';
import type { SandboxControls } from './sandbox-controls.js';

/** How a local sandbox runs its commands and ends what they leave behind: one per isolation mode. */
export interface Containment {
  /** How commands reach a server on the host (the model gateway). */
  readonly hostAddress: string;
  /** The argv and environment that run call number `call` of the sandbox. */
  command(
    argv: string[],
    env: Record<string, string>,
    options: { call: number; cwd: string; user: 'agent' | 'root' },
  ): Promise<{ argv: string[]; env: Record<string, string> }>;
  /** Ends what call `call` left running once its leader has exited. */
  afterCall(call: number): Promise<unknown>;
  /** Ends every process of the sandbox but those of the calls in `running`. */
  sweep(running: ReadonlySet<number>): Promise<unknown>;
  /** A host URL that reaches `port` in the sandbox. */
  expose(port: number): Promise<string>;
  /** The program in argv could not be started: the code a shell would give, if that is what happened. */
  startFailure(exitCode: number | null, stderr: string): number | undefined;
  /** The sandbox's cgroups, limits and user. */
  readonly controls: SandboxControls;
  close(): Promise<void>;
}

/**
 * No isolation: commands run on the host, as a user of the sandbox's own where the runner is
 * root (else as the runner's user). Where the host allows it (see SandboxCgroup) each call runs in
 * a cgroup of its own, which nothing it starts can leave, and ending the cgroup ends all of it.
 * Every process also carries the mark `<sandbox id>/<call>` in its environment, which is how a
 * call's processes are found without cgroups (a process started with a cleared environment
 * escapes that, but not its user's), and how `reclaim` finds those of a dead runner.
 */
export class PlainContainment implements Containment {
  readonly hostAddress = '127.0.0.1';

  constructor(
    private readonly sandboxId: string,
    readonly controls: SandboxControls,
  ) {
    trackOpen(`${sandboxId}/`, true);
  }

  private mark(call: number): string {
    return `${this.sandboxId}/${call}`;
  }

  async command(argv: string[], env: Record<string, string>, options: { call: number }) {
    const marked = { ...env, [markVariable]: this.mark(options.call) };
    return { argv: framedArgv(argv, await this.controls.frame(options.call), env), env: marked };
  }

  afterCall(call: number): Promise<unknown> {
    const ended = this.controls.endCall(call);
    if (ended) return ended;
    const mark = this.mark(call);
    return killMarked(mark, (found) => found !== mark);
  }

  sweep(running: ReadonlySet<number>): Promise<unknown> {
    const swept = this.controls.sweep(running);
    if (swept) return swept;
    const prefix = `${this.sandboxId}/`;
    return killMarked(prefix, (found) => running.has(Number(found.slice(prefix.length))));
  }

  async expose(port: number): Promise<string> {
    return `http://127.0.0.1:${port}`;
  }

  startFailure(): undefined {
    return undefined;
  }

  async close(): Promise<void> {
    await this.controls.close();
    trackOpen(`${this.sandboxId}/`, false);
  }
}

import { killMarked, markVariable, trackOpen } from './process-marks.js';

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
  close(): Promise<void>;
}

/**
 * No isolation: commands run on the host as the runner's user. Every process carries the mark
 * `<sandbox id>/<call>` in its environment, so what a call left running is found and killed
 * however it detached.
 */
export class PlainContainment implements Containment {
  readonly hostAddress = '127.0.0.1';

  constructor(private readonly sandboxId: string) {
    trackOpen(`${sandboxId}/`, true);
  }

  private mark(call: number): string {
    return `${this.sandboxId}/${call}`;
  }

  async command(argv: string[], env: Record<string, string>, options: { call: number }) {
    return { argv, env: { ...env, [markVariable]: this.mark(options.call) } };
  }

  afterCall(call: number): Promise<unknown> {
    const mark = this.mark(call);
    return killMarked(mark, (found) => found !== mark);
  }

  sweep(running: ReadonlySet<number>): Promise<unknown> {
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
    trackOpen(`${this.sandboxId}/`, false);
  }
}

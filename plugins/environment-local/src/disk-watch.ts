import { processLauncher } from '@longhaul/core';
import { onPath } from './host-tools.js';
import { dropArgs, type SandboxUser } from './sandbox-user.js';

/** How often usage is measured at least, and at most (a measure's cost sets the pace between). */
const minIntervalMs = 250;
const maxIntervalMs = 5_000;
/** The pause after a measure, as a multiple of what the measure took: at most 1/20 of a core. */
const pacing = 20;

/**
 * The disk limit of a sandbox's folders (workspace, HOME, TMPDIR), watched while commands run: no
 * file system here gives a folder a quota, so `du` measures them (as the sandbox's own user, so
 * nothing the agent made can steer it), and when they are past the limit and have grown since the
 * last measure, `onExceeded` stops the sandbox's processes. A single file cannot grow past the
 * limit at all (RLIMIT_FSIZE, see command-wrapper.ts); many files can until the next measure, a
 * fraction of a second after they pass it. While the folders stay past the limit without growing,
 * commands run: one that removes files brings the sandbox back under it.
 */
export class DiskWatch {
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private measuring = false;
  private pending = false;
  private last: number | undefined;
  private closed = false;

  constructor(
    private readonly paths: readonly string[],
    private readonly limitBytes: number,
    private readonly user: SandboxUser | undefined,
    private readonly onExceeded: (usedBytes: number) => Promise<void>,
  ) {}

  /** A command started: watch until the last one ends. */
  begin(): void {
    this.running++;
    if (this.running === 1 && !this.closed) this.schedule(minIntervalMs);
  }

  /**
   * A command ended. After the last one the folders are measured once more, so the next command
   * is judged by what they hold, not by what a command that removed files left behind.
   */
  end(): void {
    this.running = Math.max(0, this.running - 1);
    if (this.running === 0 && !this.closed) this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref();
  }

  /** One measure at a time: one asked for meanwhile runs after it. */
  private tick(): void {
    if (this.measuring) {
      this.pending = true;
      return;
    }
    this.measuring = true;
    const started = Date.now();
    void this.measure()
      .catch(() => undefined)
      .finally(() => {
        this.measuring = false;
        const pause = Math.min(maxIntervalMs, Math.max(minIntervalMs, (Date.now() - started) * pacing));
        if (!this.closed && this.running > 0) this.schedule(pause);
        else if (!this.closed && this.pending) this.schedule(0);
        this.pending = false;
      });
  }

  private async measure(): Promise<void> {
    const used = await diskUsage(this.paths, this.user);
    if (used === undefined) return;
    const grew = this.last === undefined || used > this.last;
    this.last = used;
    if (used > this.limitBytes && grew && this.running > 0 && !this.closed) await this.onExceeded(used);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}

/** Bytes the files under `paths` take on disk (`du`, no links followed, one file system), or undefined. */
export async function diskUsage(paths: readonly string[], user?: SandboxUser): Promise<number | undefined> {
  const du = ['du', '-s', '-x', '-c', '--block-size=1', '--', ...paths];
  const setpriv = user ? onPath('setpriv') : undefined;
  const argv = user && setpriv ? [setpriv, ...dropArgs(user), '--', ...du] : du;
  let output = '';
  const launched = await processLauncher.launch(argv, {
    cwd: '/',
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    maxOutputBytes: 64 * 1024,
    onOutput: (stream, chunk) => {
      if (stream === 'stdout') output += chunk.toString('utf8');
    },
  });
  if (launched.pid === undefined) return undefined;
  await launched.exit.catch(() => undefined);
  await launched.closed;
  // du exits non-zero when a file vanished as it looked: its total still stands.
  const total = /^(\d+)\s+total$/m.exec(output)?.[1];
  return total === undefined ? undefined : Number(total);
}

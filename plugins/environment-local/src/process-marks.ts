import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * The variable that marks every process of a plain local sandbox: `<sandbox id>/<call number>`.
 * A process keeps the environment it was started with through setsid, double forks, nohup and
 * disown, and Linux shows it in /proc/<pid>/environ, so whatever a command left running is found
 * again however it detached. (A program can start a child with a cleared environment: plain mode
 * is not isolation, see the README.)
 */
export const markVariable = 'LONGHAUL_SANDBOX';

export interface MarkedProcess {
  pid: number;
  /** The mark's value: `<sandbox id>/<call number>`. */
  mark: string;
}

function markIn(environ: Buffer, prefix: string): string | undefined {
  const needle = Buffer.from(`${markVariable}=${prefix}`);
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
    if (at > 0 && environ[at - 1] !== 0) continue;
    const start = at + markVariable.length + 1;
    const end = environ.indexOf(0, start);
    return environ.subarray(start, end === -1 ? undefined : end).toString('utf8');
  }
  return undefined;
}

/** Processes of this host, readable by the runner's user, whose mark starts with `prefix`. */
export async function markedProcesses(prefix: string): Promise<MarkedProcess[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const found = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name) => {
        try {
          const mark = markIn(await readFile(`/proc/${name}/environ`), prefix);
          return mark === undefined ? undefined : { pid: Number(name), mark };
        } catch {
          return undefined; // exited while the table was read, or another user's
        }
      }),
  );
  return found.filter((entry): entry is MarkedProcess => entry !== undefined);
}

/**
 * SIGKILLs every process whose mark starts with `prefix` and that `spare` does not keep. Scans
 * again until none is left, so a process that forks while it is being killed is caught too.
 */
export async function killMarked(
  prefix: string,
  spare: (mark: string) => boolean = () => false,
  rounds = 50,
): Promise<number> {
  let killed = 0;
  for (let round = 0; round < rounds; round++) {
    const targets = (await markedProcesses(prefix)).filter((entry) => !spare(entry.mark));
    if (targets.length === 0) break;
    for (const { pid } of targets) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // already gone
      }
    }
    // A killed process shows its environment until it is gone: give the kernel a moment.
    await delay(20);
  }
  return killed;
}

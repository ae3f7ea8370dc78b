import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, lchown, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { heldRemovedBytes } from '@longhaul/core';
import type { EnvironmentLimits } from '../../src/index.js';
import { HostEnvironment, type HostFrame } from './host-environment.js';

/** One deliberate fault, each aimed at the host or limit checks of the environment suite. */
export type HostLimitFlaw =
  | 'runs-as-runner'
  | 'no-pids-limit'
  | 'no-memory-limit'
  | 'no-disk-limit'
  | 'misses-removed-files';

/** The limits a limitedHost holds its sandboxes to. */
export const hostLimits = {
  pids: 64,
  memoryBytes: 256 * 1024 * 1024,
  diskBytes: 16 * 1024 * 1024,
} as const satisfies EnvironmentLimits;

async function chownTree(path: string, uid: number): Promise<void> {
  await lchown(path, uid, uid);
  if (!(await lstat(path)).isDirectory()) return;
  for (const name of await readdir(path)) await chownTree(join(path, name), uid);
}

/** The processes of `uid`, as /proc shows them. */
function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(readFileSync(`/proc/${name}/status`, 'utf8')))
        pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

/**
 * A HostEnvironment that runs commands (when the tests run as root) as a uid of their own with
 * prlimit's limits: processes of that uid, address space, file size; a watcher stops a command
 * once the workspace, with the files its processes removed but hold open, passes the disk limit.
 * It models what an environment shows its callers (oomKilled for a Python killed by its memory
 * limit, diskLimitHit for a stopped writer); unless `flaw` breaks one rule.
 */
export function limitedHost(flaw?: HostLimitFlaw): HostEnvironment {
  const uid = 1_879_048_192 + 60_000 + randomInt(4_096);
  const dropping = flaw !== 'runs-as-runner';
  const frame: HostFrame = {
    async prepare(root, workspace, home) {
      if (!dropping) return;
      await chmod(root, 0o711);
      await chownTree(workspace, uid);
      await chownTree(home, uid);
    },
    wrap(argv) {
      const limits = [
        '--core=0',
        ...(flaw === 'no-pids-limit' ? [] : [`--nproc=${hostLimits.pids}`]),
        ...(flaw === 'no-memory-limit' ? [] : [`--as=${hostLimits.memoryBytes}`]),
        ...(flaw === 'no-disk-limit' ? [] : [`--fsize=${hostLimits.diskBytes}`]),
      ];
      const drop = dropping ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--'] : [];
      return ['prlimit', ...limits, '--', ...drop, ...argv];
    },
    watch(workspace, kill) {
      let stopped = false;
      let measuring = false;
      const timer = setInterval(async () => {
        if (flaw === 'no-disk-limit' || measuring) return;
        measuring = true;
        const du = spawnSync('du', ['-s', '-b', workspace], { encoding: 'utf8' });
        // Files its commands removed but hold open take the disk too.
        const held =
          dropping && flaw !== 'misses-removed-files' ? await heldRemovedBytes(processesOf(uid)) : 0;
        measuring = false;
        if (Number(du.stdout.split('\t')[0]) + held > hostLimits.diskBytes) {
          stopped = true;
          kill();
        }
      }, 100);
      return () => {
        clearInterval(timer);
        return { stopped };
      };
    },
    judge({ exitCode, signal, stderr, stopped }) {
      return {
        ...(exitCode !== 0 && /MemoryError/.test(stderr) ? { oomKilled: true } : {}),
        // A shell whose writer SIGXFSZ stopped exits 128 + 25, often before the watcher looks.
        ...(stopped || signal === 'SIGXFSZ' || exitCode === 128 + 25 ? { diskLimitHit: true } : {}),
      };
    },
  };
  return new HostEnvironment(undefined, true, undefined, frame);
}

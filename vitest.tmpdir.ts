import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * The temp folder of one vitest process: every package's tests run with TMPDIR pointing into a
 * folder of the system temp folder made for the run and removed with everything in it at the end,
 * so a test that leaves its folders behind leaves them only until its run ends. The folder is
 * named after the vitest process's pid: one whose process is gone without its teardown (killed) is
 * removed by the next run. The name is short, as the paths of the sockets tests make under it must
 * stay within the 107 bytes a socket's path may have.
 */
const name = /^longhaul-vitest-(\d+)$/;

export default function setup(project: TestProject): () => void {
  const system = tmpdir();
  removeOrphans(system);
  const dir = join(system, `longhaul-vitest-${process.pid}`);
  // One there already is a killed run's whose pid this process now has.
  removeAll(dir);
  mkdirSync(dir);
  // As the system temp folder is: local sandboxes made in it run as other users when the tests
  // run as root, and pass through it to their own folders.
  chmodSync(dir, 0o1777);
  const previous = process.env.TMPDIR;
  // Read by os.tmpdir() in the test workers, started after this, and in every process they start.
  process.env.TMPDIR = dir;
  // Ctrl-C or SIGTERM: vitest exits through process.exit without the teardown, and without
  // removing its own folder of the system temp folder, which it does on closing.
  const onExit = () => {
    removeAll(dir);
    if (dirname(project.tmpDir) === system) removeAll(project.tmpDir);
  };
  process.once('exit', onExit);
  return () => {
    process.off('exit', onExit);
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    removeAll(dir);
  };
}

/** Removes the run folders in `system` whose vitest process is no longer alive. */
function removeOrphans(system: string): void {
  for (const entry of readdirSync(system)) {
    const pid = Number(name.exec(entry)?.[1]);
    if (pid > 0 && !pidAlive(pid)) removeAll(join(system, entry));
  }
}

/**
 * Whether a process with this pid exists (EPERM: it does, another user's). Not imported from the
 * testkit: this file and vitest.shared.ts are all a workspace like this one needs to share them.
 */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes `dir` whole. Tests leave folders read-only (or closed) to check what a program does
 * about them, which stop a user other than root from removing what they hold: those are opened up
 * and the removal tried again. What still cannot go is reported, not thrown: the results stand.
 */
function removeAll(dir: string): void {
  const remove = () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  try {
    remove();
    return;
  } catch {
    openUp(dir);
  }
  try {
    remove();
  } catch (error) {
    process.stderr.write(`could not remove the test run's temp folder ${dir}: ${(error as Error).message}\n`);
  }
}

/** Gives the owner full access to every folder under `dir` it owns (others' cannot be changed). */
function openUp(dir: string): void {
  try {
    if (!lstatSync(dir).isDirectory()) return;
    chmodSync(dir, 0o700);
  } catch {
    // Gone, or another user's: what it holds is tried all the same.
  }
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) openUp(join(dir, name));
}

import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { killMarked } from './process-marks.js';

/** Every sandbox folder is named `longhaul-…` and holds this label. */
export const folderPrefix = 'longhaul-';
export const labelFile = 'sandbox.json';

/** Whose a sandbox folder is: the run, and the runner process that owns it. */
export interface SandboxLabel {
  runId: string;
  trialId: string;
  purpose: string;
  /** The owner's pid, and its start time (so a recycled pid is not taken for the owner). */
  pid: number;
  started: string | undefined;
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
async function startTime(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export async function writeLabel(root: string, owner: Omit<SandboxLabel, 'pid' | 'started'>): Promise<void> {
  const label: SandboxLabel = { ...owner, pid: process.pid, started: await startTime(process.pid) };
  await writeFile(join(root, labelFile), `${JSON.stringify(label)}\n`);
}

async function readLabel(root: string): Promise<SandboxLabel | undefined> {
  try {
    const label = JSON.parse(await readFile(join(root, labelFile), 'utf8')) as SandboxLabel;
    return typeof label.runId === 'string' && Number.isInteger(label.pid) ? label : undefined;
  } catch {
    return undefined;
  }
}

async function ownerAlive(label: SandboxLabel): Promise<boolean> {
  try {
    process.kill(label.pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = await startTime(label.pid);
  return label.started === undefined || started === undefined || started === label.started;
}

/**
 * Removes the sandbox folders under `base` whose owner process is dead (a runner that was killed),
 * with `runId` only those of that run, and kills what their commands left running. Folders of
 * live runners, and folders without a label, are left alone.
 */
export async function reclaimSandboxes(base: string, runId?: string): Promise<{ removed: string[] }> {
  const names = await readdir(base).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names.filter((n) => n.startsWith(folderPrefix)).sort()) {
    const root = join(base, name);
    const label = await readLabel(root);
    if (!label || (runId !== undefined && label.runId !== runId) || (await ownerAlive(label))) continue;
    await killMarked(`${name}/`);
    await rm(root, { recursive: true, force: true });
    removed.push(root);
  }
  return { removed };
}

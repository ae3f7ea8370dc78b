import { hostname } from 'node:os';

/** Labels on every container, volume and network this package makes. */
export const labels = {
  run: 'longhaul.run',
  trial: 'longhaul.trial',
  purpose: 'longhaul.purpose',
  task: 'longhaul.task',
  /** `host:pid` of the process that made the object; prune leaves objects of live processes alone. */
  owner: 'longhaul.owner',
  network: 'longhaul.network',
} as const;

export function ownerLabel(): string {
  return `${hostname()}:${process.pid}`;
}

/** Whether the process named by an owner label still runs (on this host; other hosts count as alive). */
export function ownerAlive(owner: string | undefined): boolean {
  if (owner === undefined) return false;
  const at = owner.lastIndexOf(':');
  if (owner.slice(0, at) !== hostname()) return true;
  const pid = Number(owner.slice(at + 1));
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A name Docker accepts, made from free text (run and trial ids). */
export function dockerName(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 200) || 'x'
  );
}

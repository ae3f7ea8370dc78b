import type { TrialRecord } from '@longhaul/core';

/**
 * Exit code of a run in which some trial ended `error:<class>` or `cancelled`: its rates are over
 * fewer steps than were planned, which a script or CI must notice.
 */
export const unfinishedExitCode = 3;

/**
 * Why a trial measured less than it was meant to: its own status when that is an error or a
 * cancel, else the first step's that is (a trial may go on past a step that errored), else
 * undefined. A trial still pending or running was cut short too, and counts as cancelled.
 */
export function unfinishedReason(record: Pick<TrialRecord, 'status' | 'steps'>): string | undefined {
  const broken = (status: string) =>
    status.startsWith('error:') || status === 'cancelled' || status === 'running' || status === 'pending';
  const reason = broken(record.status)
    ? record.status
    : record.steps.find((step) => broken(step.status))?.status;
  if (reason === undefined) return undefined;
  return reason.startsWith('error:') ? reason : 'cancelled';
}

/**
 * One line saying how many trials did not finish and why, most frequent reason first, e.g.
 * `3 of 12 trials did not finish: 2 error:model, 1 cancelled — …`; undefined when all finished.
 */
export function unfinishedSummary(
  records: Pick<TrialRecord, 'status' | 'steps'>[],
  runDir: string,
): string | undefined {
  const counts = new Map<string, number>();
  for (const record of records) {
    const reason = unfinishedReason(record);
    if (reason !== undefined) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  const reasons = [...counts]
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([reason, n]) => `${n} ${reason}`)
    .join(', ');
  const trials = records.length === 1 ? 'trial' : 'trials';
  return `${total} of ${records.length} ${trials} did not finish: ${reasons} — rates are over scored steps; see longhaul report ${runDir}`;
}

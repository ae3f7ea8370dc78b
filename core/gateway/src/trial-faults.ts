import { ClassifiedError } from '@longhaul/core';

interface Pending {
  error: ClassifiedError;
  count: number;
}

/** Distinct faults kept per trial between takes; the rest are only counted. */
const maxDistinct = 20;

/**
 * Faults answered to each trial's requests, until the kernel takes them. The same fault
 * repeated (an agent retrying a refused model in a loop) is kept once with a count, so what
 * the trajectory records stays the size of the distinct faults, not of the traffic; past
 * `maxDistinct` faults (an agent varying the model name) the rest are summed up in one.
 */
export class TrialFaults {
  private readonly pending = new Map<string, Pending[]>();

  record(trialId: string, error: ClassifiedError): void {
    const list = this.pending.get(trialId) ?? [];
    const same = (fault: ClassifiedError) =>
      list.find(
        (entry) => entry.error.errorClass === fault.errorClass && entry.error.message === fault.message,
      );
    const seen = same(error);
    if (seen) seen.count++;
    else if (list.length < maxDistinct) list.push({ error, count: 1 });
    else {
      const overflow = new ClassifiedError(error.errorClass, 'more faults unlike the ones before');
      const counted = same(overflow);
      if (counted) counted.count++;
      else list.push({ error: overflow, count: 1 });
    }
    this.pending.set(trialId, list);
  }

  take(trialId: string): ClassifiedError[] {
    const list = this.pending.get(trialId) ?? [];
    this.pending.delete(trialId);
    return list.map(({ error, count }) =>
      count === 1 ? error : new ClassifiedError(error.errorClass, `${error.message} (${count} times)`),
    );
  }

  forget(trialId: string): void {
    this.pending.delete(trialId);
  }
}

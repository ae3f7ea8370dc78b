import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { availableCores, cgroupCpuLimit } from '../../src/process/cores.js';
import { caseSlots, Slots } from '../../src/process/slots.js';

const roots = mkdtempSync(join(tmpdir(), 'longhaul-cgroup-'));
afterAll(() => rmSync(roots, { recursive: true, force: true }));

/** A cgroup file system with the given files. */
function cgroup(name: string, files: Record<string, string>): string {
  const root = join(roots, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), `${text}\n`);
  }
  return root;
}

describe('slots', () => {
  it('gives at most `size` slots at once and passes a released one to the first waiter', async () => {
    const slots = new Slots(2);
    const first = await slots.acquire();
    const second = slots.tryAcquire();
    expect(second).toBeDefined();
    expect(slots.tryAcquire()).toBeUndefined();
    const order: string[] = [];
    const waiter = (name: string) =>
      slots.acquire().then((release) => {
        order.push(name);
        return release;
      });
    const a = waiter('a');
    const b = waiter('b');
    first();
    first(); // a second call gives nothing back
    const releaseA = await a;
    expect(order).toEqual(['a']);
    second!();
    await b;
    expect(order).toEqual(['a', 'b']);
    expect(slots.available).toBe(0);
    releaseA();
    expect(slots.available).toBe(1);
  });

  it('stops waiting when the signal aborts, without taking a slot', async () => {
    const slots = new Slots(1);
    const held = await slots.acquire();
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    held();
    expect(slots.available).toBe(1);
  });

  it('serves the waiter of the trial that started first, whatever the order they asked in', async () => {
    const run = new Slots(1);
    const [first, second, third] = [run.forTrial(), run.forTrial(), run.forTrial()];
    expect([first.rank, second.rank, third.rank]).toEqual([1, 2, 3]);
    const held = await third.acquire();
    const order: string[] = [];
    const waiter = (name: string, slots: Slots) =>
      slots.acquire().then((release) => {
        order.push(name);
        release();
      });
    // The third trial asks again before the others: the first trial is still served first, and
    // waiters of one trial keep their order.
    const waits = [
      waiter('third', third),
      waiter('second a', second),
      waiter('first', first),
      waiter('second b', second),
    ];
    expect(third.tryAcquire()).toBeUndefined();
    held();
    await Promise.all(waits);
    expect(order).toEqual(['first', 'second a', 'second b', 'third']);
    expect(run.available).toBe(1);
  });

  it("sizes a run's case slots by caseWorkers, or by the cores available", () => {
    expect(caseSlots(3).size).toBe(3);
    expect(caseSlots(undefined).size).toBe(availableCores());
    expect(availableCores()).toBeLessThanOrEqual(availableParallelism());
    expect(() => new Slots(0)).toThrow(/positive integer/);
  });
});

describe('cgroup CPU limit', () => {
  it("reads cgroup v2's cpu.max", () => {
    expect(cgroupCpuLimit(cgroup('v2', { 'cpu.max': '150000 100000' }))).toBe(1.5);
    expect(cgroupCpuLimit(cgroup('v2-max', { 'cpu.max': 'max 100000' }))).toBeUndefined();
  });

  it("reads cgroup v1's CFS quota, where -1 is no limit", () => {
    const limited = { 'cpu/cpu.cfs_quota_us': '50000', 'cpu/cpu.cfs_period_us': '100000' };
    expect(cgroupCpuLimit(cgroup('v1', limited))).toBe(0.5);
    const open = { 'cpu/cpu.cfs_quota_us': '-1', 'cpu/cpu.cfs_period_us': '100000' };
    expect(cgroupCpuLimit(cgroup('v1-open', open))).toBeUndefined();
    expect(cgroupCpuLimit(join(roots, 'none'))).toBeUndefined();
  });
});

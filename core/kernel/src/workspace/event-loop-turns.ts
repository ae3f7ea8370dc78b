import { setImmediate } from 'node:timers/promises';

/**
 * Small-file work over a whole workspace (a walk's lstats, a snapshot's reads, a restore's
 * copies) runs as synchronous system calls: at 100,000 files, passing each one through libuv's
 * thread pool costs more than the call itself (a wake-up, a promise and a handle per call). The
 * event loop still turns: a caller awaits this between calls, and every few milliseconds it lets
 * the loop run timers, I/O and signals before going on.
 */
const sliceMs = 8;
let sliceStarted = performance.now();

export async function turnWhenDue(): Promise<void> {
  if (performance.now() - sliceStarted < sliceMs) return;
  await setImmediate();
  sliceStarted = performance.now();
}

/** Files up to this size are read, written or copied with synchronous calls (see turnWhenDue). */
export const quickBytes = 64 * 1024;

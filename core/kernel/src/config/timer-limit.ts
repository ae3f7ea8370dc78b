import { z } from 'zod';

/**
 * The longest delay a Node timer honours: setTimeout fires at once (with a TimeoutOverflowWarning)
 * for anything above 2^31-1 ms, about 24.8 days, so a larger limit would end every turn at once.
 */
export const maxTimerMs = 2 ** 31 - 1;

const tooLong = (unit: string, max: number) =>
  `at most ${max} ${unit} (about 24.8 days), the longest wait a Node timer supports`;

/** A wall-clock limit in seconds, refused above what a timer can wait. */
export const timerSeconds = () =>
  z
    .number()
    .positive()
    .max(maxTimerMs / 1000, tooLong('seconds', Math.floor(maxTimerMs / 1000)));

/** A wall-clock limit in milliseconds, refused above what a timer can wait. */
export const timerMs = () => z.number().int().positive().max(maxTimerMs, tooLong('ms', maxTimerMs));

/**
 * A delay made safe for setTimeout: never negative, never past `maxTimerMs` (a validated limit
 * cannot exceed it, but a sum of limits or a plugin's own value can).
 */
export function clampTimerMs(ms: number): number {
  return Number.isNaN(ms) ? 0 : Math.min(Math.max(0, ms), maxTimerMs);
}

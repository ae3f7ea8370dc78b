import { describe, expect, it } from 'vitest';
import { pool } from '../../src/workspace/pool.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('pool', () => {
  it('takes items from a stream only as workers free up, never more than the limit at once', async () => {
    let taken = 0;
    let ended = 0;
    let running = 0;
    let most = 0;
    let ahead = 0;
    async function* items() {
      for (let i = 0; i < 50; i++) {
        taken++;
        ahead = Math.max(ahead, taken - ended);
        yield i;
      }
    }
    const done: number[] = [];
    await pool(items(), 4, async (item) => {
      running++;
      most = Math.max(most, running);
      await tick();
      running--;
      ended++;
      done.push(item);
    });
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(most).toBe(4);
    // Never more items taken from the stream than the work that has not ended can hold.
    expect(ahead).toBe(4);
  });

  it('after a failure takes no further item, and throws once the work in flight has ended', async () => {
    const started: number[] = [];
    let inFlight = 0;
    const failing = pool(
      Array.from({ length: 100 }, (_, i) => i),
      4,
      async (item) => {
        started.push(item);
        inFlight++;
        try {
          await tick();
          if (item === 5) throw new Error('item 5 failed');
          await tick();
        } finally {
          inFlight--;
        }
      },
    );
    await expect(failing).rejects.toThrow('item 5 failed');
    expect(inFlight).toBe(0);
    expect(started.length).toBeLessThan(12);
  });

  it('throws what the stream throws, and closes the stream it stopped taking from', async () => {
    let closed = false;
    async function* items() {
      try {
        yield 1;
        yield 2;
        yield 3;
      } finally {
        closed = true;
      }
    }
    await expect(
      pool(items(), 2, async (item) => {
        if (item === 1) throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(closed).toBe(true);
    async function* broken() {
      yield 1;
      throw new Error('the scan failed');
    }
    await expect(pool(broken(), 2, async () => undefined)).rejects.toThrow('the scan failed');
  });
});

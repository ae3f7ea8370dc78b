import { mkdtemp, open, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DiskWatch, diskUsage, heldRemovedBytes } from '../../src/index.js';

/** A watch over a usage the test sets, recording each stop. */
function watched(limitBytes: number) {
  const state = { used: 0, measures: 0, stops: [] as number[] };
  const watch = new DiskWatch({
    limitBytes,
    measure: async () => {
      state.measures++;
      return state.used;
    },
    onExceeded: async (used) => {
      state.stops.push(used);
    },
  });
  return { state, watch };
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !condition(); ) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await delay(20);
  }
}

/** Runs `use` on a watch of a 1000-byte limit whose first command began with `used` bytes, once measured. */
async function withCommand(
  used: number,
  use: (state: ReturnType<typeof watched>['state'], watch: DiskWatch) => Promise<void>,
): Promise<void> {
  const { state, watch } = watched(1000);
  try {
    state.used = used;
    watch.begin();
    await until(() => state.measures >= 1);
    await use(state, watch);
  } finally {
    watch.close();
  }
}

describe('DiskWatch', () => {
  it('stops the sandbox once its files are past the limit and grow while commands run', async () => {
    await withCommand(0, async (state) => {
      state.used = 1500;
      await until(() => state.stops.length > 0);
      expect(state.stops[0]).toBe(1500);
    });
  });

  it('lets commands run while the files stay past the limit without growing, and measures nothing between commands', async () => {
    await withCommand(0, async (state, watch) => {
      state.used = 1500;
      await until(() => state.stops.length === 1);
      const atEnd = state.measures;
      watch.end();
      // One measure after the last command ended, then none.
      await until(() => state.measures > atEnd);
      const measures = state.measures;
      await delay(600);
      expect(state.measures, 'measured while no command ran').toBe(measures);
      // The next command finds the files as they were: past the limit, not grown.
      watch.begin();
      await until(() => state.measures >= measures + 2);
      expect(state.stops).toHaveLength(1);
      watch.end();
    });
  });

  it('does not stop a sandbox that begins past its limit until its files grow', async () => {
    await withCommand(1500, async (state) => {
      await until(() => state.measures >= 3);
      expect(state.stops).toEqual([]);
      state.used = 1600;
      await until(() => state.stops.length === 1);
    });
  });

  it('measures commands ending in quick succession a few times, not once each', async () => {
    await withCommand(0, async (state, watch) => {
      for (let i = 0; i < 200; i++) {
        watch.end();
        watch.begin();
        await delay(1);
      }
      watch.end();
      await delay(300);
      expect(state.measures, 'a measure for each command that ended').toBeLessThan(50);
    });
  });

  it('never stops a command that began after its measure started', async () => {
    let release: (() => void) | undefined;
    const stops: number[] = [];
    let used = 0;
    let slow = false;
    const watch = new DiskWatch({
      limitBytes: 1000,
      measure: async () => {
        if (slow) await new Promise<void>((resolve) => (release = resolve));
        return used;
      },
      onExceeded: async (bytes) => {
        stops.push(bytes);
      },
    });
    try {
      watch.begin();
      await delay(100);
      // The last command ends, having written past the limit; its final measure is slow.
      slow = true;
      used = 1500;
      watch.end();
      await until(() => release !== undefined);
      watch.begin();
      slow = false;
      release?.();
      await delay(400);
      expect(stops, 'the new command was stopped for what the one before it wrote').toEqual([]);
      watch.end();
    } finally {
      watch.close();
    }
  });

  it('diskUsage counts the bytes files take, and nothing for a path that is not there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'disk-watch-'));
    try {
      const before = await diskUsage([dir]);
      await writeFile(join(dir, 'a.bin'), Buffer.alloc(1 << 20, 1));
      const after = await diskUsage([dir]);
      expect(before).toBeDefined();
      expect((after ?? 0) - (before ?? 0)).toBeGreaterThanOrEqual(1 << 20);
      expect(await diskUsage([join(dir, 'missing')])).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('heldRemovedBytes', () => {
  it('counts a file a process removed but holds open, once, and nothing once it is closed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'held-'));
    const path = join(dir, 'gone.bin');
    const handle = await open(path, 'w');
    try {
      await handle.write(Buffer.alloc(1 << 20, 1));
      await handle.sync();
      const before = await heldRemovedBytes([process.pid]);
      await unlink(path);
      const held = await heldRemovedBytes([process.pid, process.pid]);
      expect(held - before).toBeGreaterThanOrEqual(1 << 20);
      await handle.close();
      expect(await heldRemovedBytes([process.pid])).toBe(before);
    } finally {
      await handle.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

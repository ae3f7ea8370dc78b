// What a snapshot's manifest costs the runner by itself, without the files: a snapshot of N
// entries written (their blobs stored already, named by `addStored`, in an order that is not the
// path order), the snapshot scanned entry by entry, and the diff of two such snapshots one file
// apart. Each workload runs in a process of its own; each phase prints its seconds and the peak
// RSS reached during it (the high-water mark is reset before each phase).
//
//   npx turbo run build --filter=@longhaul/core     # the bench imports dist
//   node bench/snapshots/manifest.mjs [--entries 1e5,1e6] [--core path/to/core/kernel/dist/index.js]
//
// `--core` measures another checkout's build (the version before a change).
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '1e5,1e6' },
    core: { type: 'string' },
    one: { type: 'string' },
  },
});

if (values.one === undefined) {
  const rows = [];
  for (const entries of values.entries.split(',')) {
    const args = ['--expose-gc', fileURLToPath(import.meta.url), '--one', entries];
    if (values.core) args.push('--core', values.core);
    rows.push(
      ...JSON.parse(
        execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
      ),
    );
  }
  console.table(rows);
  process.exit(0);
}

const { BlobSnapshotStore, snapshotDiff } = await import(values.core ?? '@longhaul/core');
const count = Number(values.one);

async function peakMiB() {
  const status = await readFile('/proc/self/status', 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const rows = [];
async function phase(operation, work) {
  globalThis.gc?.();
  // Resets the process's peak RSS to its current RSS (Linux), so the peak is this phase's.
  await writeFile('/proc/self/clear_refs', '5');
  const started = performance.now();
  const result = await work();
  rows.push({
    entries: count,
    operation,
    seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
    'peak RSS MiB': Number((await peakMiB()).toFixed(1)),
  });
  return result;
}

const dir = await mkdtemp(join(tmpdir(), 'longhaul-bench-manifest-'));
try {
  const store = new BlobSnapshotStore(join(dir, 'snapshots'));
  const blobs = [];
  for (const text of ['one\n', 'two\n', 'three\n']) {
    const writer = store.writer();
    blobs.push(await writer.add({ path: 'seed', mode: 0o644 }, new TextEncoder().encode(text)));
    await writer.finish();
  }
  // A thousand to a folder, as two-steps.mjs makes them; taken in a stride through the indices so
  // that the writer has to sort them, as a walk's order (by folder, then by name) would have it.
  const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));
  let stride = 7919;
  while (gcd(stride, count) !== 1) stride += 2;
  const snapshot = async (changed) => {
    const writer = store.writer();
    for (let k = 0; k < count; k++) {
      const i = (k * stride) % count;
      const path = `a-many/${String(Math.floor(i / 1000)).padStart(4, '0')}/${i}.txt`;
      await writer.addStored({ path, mode: 0o644 }, blobs[i === changed ? 2 : i % 2]);
    }
    return writer.finish();
  };
  const first = await phase('write', () => snapshot(-1));
  await phase('scan', async () => {
    let seen = 0;
    if (store.scan) for await (const _ of store.scan(first)) seen++;
    else seen = (await store.entries(first)).length;
    if (seen !== count) throw new Error(`scanned ${seen} entries of ${count}`);
  });
  const second = await snapshot(Math.floor(count / 2));
  await phase('diff, one file apart', async () => {
    let parts = 0;
    for await (const _ of snapshotDiff(store, first, second)) parts++;
    if (parts !== 1) throw new Error(`${parts} parts where one file changed`);
  });
  process.stdout.write(JSON.stringify(rows));
} finally {
  await rm(dir, { recursive: true, force: true });
}

// What each whole-workspace operation costs, one at a time, on a workspace of many small files in
// a host folder (FolderWorkspace over BlobSnapshotStore, as the local environment and Docker's
// volumes use them): the snapshot with every blob new and again with every blob stored, the diff
// of the first snapshot from none (every file added) and of two snapshots one file apart, a
// sandbox's workspace restored into an empty folder, a restore over an unchanged workspace, and a
// recursive listing, beside `cp -a` of the same files. Prints seconds per operation and the
// process's peak RSS, and the restore into an empty folder again in a process of its own
// (restore-alone.mjs) with that process's peak.
//
//   npx turbo run build --filter=@longhaul/core     # the bench imports dist
//   node bench/snapshots/operations.mjs [--files 10000] [--keep]
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BlobSnapshotStore, excludeMatcher, FolderWorkspace, snapshotDiff } from '@longhaul/core';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '10000' },
    keep: { type: 'boolean', default: false },
  },
});
const count = Number(values.files);

async function peakMiB() {
  const status = await readFile('/proc/self/status', 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const dir = await mkdtemp(join(tmpdir(), 'longhaul-bench-operations-'));
const rows = [];
async function timed(operation, work) {
  const started = performance.now();
  const result = await work();
  rows.push({
    operation,
    seconds: ((performance.now() - started) / 1000).toFixed(2),
    'peak RSS': `${(await peakMiB()).toFixed(1)} MiB`,
  });
  console.log(JSON.stringify(rows.at(-1)));
  return result;
}

try {
  const source = join(dir, 'source');
  const target = join(dir, 'target');
  await mkdir(source);
  await mkdir(target);
  // The same files as two-steps.mjs: about 100 bytes each, each different, a thousand to a folder.
  execFileSync(
    'python3',
    [
      '-c',
      `
import os
for i in range(${count}):
    if i % 1000 == 0:
        folder = 'a-many/%04d' % (i // 1000)
        os.makedirs(folder)
    with open('%s/%d.txt' % (folder, i), 'w') as out:
        out.write('file %d of the workload\\n%s\\n' % (i, 'y' * 70))
`,
    ],
    { cwd: source },
  );
  await writeFile(join(source, 'main.py'), 'print("hello")\n');
  const store = new BlobSnapshotStore(join(dir, 'snapshots'));
  const never = excludeMatcher([]);
  const workspace = new FolderWorkspace(source, never, Number.POSITIVE_INFINITY);
  const copy = new FolderWorkspace(target, never, Number.POSITIVE_INFINITY);
  const drain = async (parts) => {
    let bytes = 0;
    for await (const part of parts) bytes += part.length;
    return bytes;
  };

  const first = await timed('snapshot, every blob new', () => workspace.snapshot(store));
  await timed('snapshot, every blob stored', () => workspace.snapshot(store));
  await timed('diff from no snapshot', () => drain(snapshotDiff(store, undefined, first)));
  await writeFile(join(source, 'notes.md'), 'one more file\n');
  const second = await timed('snapshot, one file more', () => workspace.snapshot(store));
  await timed('diff, one file apart', () => drain(snapshotDiff(store, first, second)));
  // The same files' copy by `cp -a` just before, the time a restore is to be measured against
  // (what creating a file costs a disk can change from one minute to the next).
  await timed('cp -a of the workspace', () => execFileSync('cp', ['-a', source, join(dir, 'copied')]));
  await timed('restore into an empty folder', () => copy.restore(store, second));
  await timed('restore over the same files', () => copy.restore(store, second));
  await timed('list, recursive', () => copy.list('.', true));
  await mkdir(join(dir, 'alone'));
  const script = new URL('restore-alone.mjs', import.meta.url).pathname;
  const alone = JSON.parse(
    execFileSync(process.execPath, [script, join(dir, 'snapshots'), second, join(dir, 'alone')], {
      encoding: 'utf8',
    }),
  );
  rows.push({
    operation: 'restore into an empty folder, alone',
    seconds: alone.seconds.toFixed(2),
    'peak RSS': `${alone.peakMiB.toFixed(1)} MiB`,
  });
  console.table(rows);
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}

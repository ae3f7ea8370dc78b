// Restores a stored snapshot into an empty folder in a process that does nothing else, so that its
// peak RSS (VmHWM) is the restore's own and not what the operations before it left in the heap.
// Prints {"seconds", "peakMiB"} as JSON. operations.mjs runs it; by hand:
//
//   node bench/snapshots/restore-alone.mjs SNAPSHOTS-DIR REF EMPTY-FOLDER
import { readFile } from 'node:fs/promises';
import { BlobSnapshotStore, excludeMatcher, FolderWorkspace } from '@longhaul/core';

const [snapshots, ref, target] = process.argv.slice(2);
const workspace = new FolderWorkspace(target, excludeMatcher([]), Number.POSITIVE_INFINITY);
const started = performance.now();
await workspace.restore(new BlobSnapshotStore(snapshots), ref);
const seconds = (performance.now() - started) / 1000;
const status = await readFile('/proc/self/status', 'utf8');
const peakMiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
console.log(JSON.stringify({ seconds, peakMiB }));

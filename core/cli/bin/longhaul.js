#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// A run holds little at a time, but snapshotting, diffing and restoring a large workspace makes
// garbage fast, and V8's default heap growth lets it pile up before a full collection: a two-step
// run over 100,000 files peaked at 320-335 MiB, 190-210 MiB with this flag. It is set before the
// CLI is loaded (hence the dynamic import), so the heap grows by it from the start.
setFlagsFromString('--optimize-for-size');
const { main } = await import('../dist/main.js');

process.exitCode = await main(process.argv.slice(2));

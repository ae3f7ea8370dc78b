import { closeSync, openSync, read, unlinkSync, write, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';
import { byPath } from './pair-by-path.js';

// Records sorted by path with a bounded number in memory: an external merge sort whose runs are
// temp files without names. What a snapshot's manifest is written from.

/** Records held in memory before they are sorted and written out as one run. */
export const defaultRunSize = 32_768;
/** Bytes read from a run or a manifest at once. */
const chunkBytes = 64 * 1024;

/** Runs merged at once: each holds a read buffer, so a merge's memory does not grow with the runs. */
const mergeWidth = 16;

const readAt = promisify(read);
const writeAt = promisify(write);

/** Closes the run files of a spill dropped without `close` (a snapshot whose walk failed). */
const dropped = new FinalizationRegistry<number[]>((fds) => {
  for (const fd of fds.splice(0)) closeSync(fd);
});

/**
 * Records to be given back sorted by path, held in memory only a run at a time: each full run is
 * sorted and written to a temp file of its own, and `sorted()` merges the runs. A run's file is
 * unlinked as soon as it is opened and read through its descriptor, so neither a crash nor a
 * snapshot abandoned halfway (an `add` that failed) leaves it on disk. Records of one path keep
 * the order they were added in, as `Array.prototype.sort` (stable) keeps them.
 */
export class SortedSpill<T extends { path: string }> {
  private pending: T[] = [];
  private runs: Run[] = [];
  /** The runs' descriptors, closed by `close` or, when the spill is dropped, by `dropped`. */
  private readonly fds: number[] = [];
  private added = 0;

  constructor(
    /** A new temp file's name (in the store's folder, so its space is the store's). */
    private readonly tempPath: () => string,
    /** The record's text as the manifest holds it. */
    private readonly text: (record: T) => string,
    private readonly runSize = defaultRunSize,
  ) {
    dropped.register(this, this.fds, this);
  }

  /** Records added so far. */
  get count(): number {
    return this.added;
  }

  add(record: T): void {
    this.pending.push(record);
    this.added++;
    if (this.pending.length >= this.runSize) this.spill();
  }

  /** Writes the records in memory as a sorted run (synchronously: `skip` cannot wait). */
  private spill(): void {
    const fd = this.runFile();
    const bytes = Buffer.from(`${this.lines(this.pending).join('\n')}\n`);
    this.pending = [];
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, at);
    this.runs.push({ fd, size: bytes.length });
  }

  /** A new run's file, open for writing and reading, with no name on disk. */
  private runFile(): number {
    const path = this.tempPath();
    const fd = openSync(path, 'wx+', 0o600);
    this.fds.push(fd);
    unlinkSync(path);
    return fd;
  }

  /** Merges runs into one run of their own (they are closed). */
  private async mergeRuns(runs: Run[]): Promise<Run> {
    const fd = this.runFile();
    let size = 0;
    for await (const batch of merge(runs.map((run) => new RunReader(run.fd, run.size)))) {
      const bytes = Buffer.from(`${batch.join('\n')}\n`);
      for (let at = 0; at < bytes.length; )
        at += (await writeAt(fd, bytes, at, bytes.length - at, size + at)).bytesWritten;
      size += bytes.length;
    }
    for (const run of runs) {
      this.fds.splice(this.fds.indexOf(run.fd), 1);
      closeSync(run.fd);
    }
    return { fd, size };
  }

  private lines(records: T[]): string[] {
    return records.sort(byPath).map(this.text);
  }

  /** The records' texts in path order, in batches; once. */
  async *sorted(): AsyncGenerator<string[]> {
    const lines = this.lines(this.pending);
    this.pending = [];
    if (this.runs.length === 0) {
      for (let at = 0; at < lines.length; at += 1024) yield lines.slice(at, at + 1024);
      return;
    }
    // Many runs are first merged a few at a time into longer ones, neighbours with neighbours so
    // that records of one path keep their order.
    while (this.runs.length > mergeWidth) {
      const merged: Run[] = [];
      for (let at = 0; at < this.runs.length; at += mergeWidth) {
        const group = this.runs.slice(at, at + mergeWidth);
        merged.push(group.length === 1 ? group[0]! : await this.mergeRuns(group));
      }
      this.runs = merged;
    }
    // The records in memory were added last: as the last source, they lose ties to the runs.
    yield* merge([...this.runs.map((run) => new RunReader(run.fd, run.size)), new LinesReader(lines)]);
  }

  close(): void {
    dropped.unregister(this);
    for (const fd of this.fds.splice(0)) closeSync(fd);
  }
}

interface Run {
  fd: number;
  size: number;
}

/**
 * Sorted sources merged, as texts in batches: the head of each compared in turn (a few sources);
 * on a tie the earlier source's record comes first.
 */
async function* merge(sources: Reader[]): AsyncGenerator<string[]> {
  for (const source of sources) await source.fill();
  let batch: string[] = [];
  for (;;) {
    let best: Reader | undefined;
    for (const source of sources)
      if (source.head !== undefined && (best === undefined || source.head.path < best.head!.path))
        best = source;
    if (best === undefined) break;
    batch.push(best.head!.text);
    if (!best.step()) await best.fill();
    if (batch.length >= 1024) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** A sorted source of a merge: its first line (`head`) and the way to the next. */
interface Reader {
  head: { path: string; text: string } | undefined;
  /** Moves to the next line held; false when none is held (then `fill`). */
  step(): boolean;
  fill(): Promise<void>;
}

class LinesReader implements Reader {
  head: { path: string; text: string } | undefined;
  private next = 0;

  constructor(private readonly lines: string[]) {}

  step(): boolean {
    const text = this.lines[this.next++];
    this.head = text === undefined ? undefined : { path: (JSON.parse(text) as { path: string }).path, text };
    return true;
  }

  async fill(): Promise<void> {
    this.step();
  }
}

/** A run file's lines, read a chunk at a time. */
class RunReader implements Reader {
  head: { path: string; text: string } | undefined;
  private lines: string[] = [];
  private next = 0;
  private rest = '';
  private at = 0;
  private readonly decoder = new StringDecoder('utf8');
  private readonly buffer = Buffer.alloc(chunkBytes);

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {}

  step(): boolean {
    const text = this.lines[this.next++];
    if (text === undefined) return false;
    this.head = { path: (JSON.parse(text) as { path: string }).path, text };
    return true;
  }

  async fill(): Promise<void> {
    this.lines = [];
    this.next = 0;
    while (this.lines.length === 0 && this.at < this.size) {
      const { bytesRead } = await readAt(
        this.fd,
        this.buffer,
        0,
        Math.min(chunkBytes, this.size - this.at),
        this.at,
      );
      if (bytesRead === 0) break;
      this.at += bytesRead;
      const text = this.rest + this.decoder.write(this.buffer.subarray(0, bytesRead));
      const cut = text.lastIndexOf('\n');
      this.rest = text.slice(cut + 1);
      if (cut >= 0) this.lines = text.slice(0, cut).split('\n');
    }
    if (!this.step()) this.head = undefined;
  }
}

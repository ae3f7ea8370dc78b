import { createHash } from 'node:crypto';
import { closeSync, openSync, read, unlinkSync, write, writeSync } from 'node:fs';
import { access, type FileHandle, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';
import type { SkippedFile } from '../contracts/index.js';
import { ClassifiedError } from '../contracts/index.js';

// A snapshot's manifest, written and read as a stream: the entries of a workspace of a million
// files are never a list in memory. The text is exactly what `manifestText` makes of the same
// entries, so refs do not change and manifests of older runs stay readable.

/** One line of a snapshot manifest. */
export interface ManifestEntry {
  path: string;
  mode: number;
  /** sha256 of the file's bytes: the name of its blob. */
  blob: string;
}

/** The order of a manifest: JS string comparison, i.e. by UTF-16 code units (not code points). */
export const byPath = (a: { path: string }, b: { path: string }) =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/** A file entry as the manifest writes it (only these keys, in this order). */
export const fileRecord = (file: ManifestEntry): ManifestEntry => ({
  path: file.path,
  mode: file.mode,
  blob: file.blob,
});

/** A skipped file as the manifest writes it: the reason only when it is not the size, so refs of size-only skips stay as they were. */
export const skippedRecord = (file: SkippedFile): SkippedFile => ({
  path: file.path,
  size: file.size,
  ...(file.reason !== undefined && file.reason !== 'size' ? { reason: file.reason } : {}),
});

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

/**
 * Writes the manifest of sorted file and skipped records to `temp`, hashing it as it goes, flushes
 * it and renames it to `<folder>/<sha256>.json` (kept as it is when there already): a manifest on
 * disk is always whole. The temp file is removed when anything fails. Gives the sha256 (the ref).
 */
export async function writeManifest(
  temp: string,
  folder: string,
  files: SortedSpill<ManifestEntry>,
  skipped: SortedSpill<SkippedFile>,
): Promise<string> {
  const hash = createHash('sha256');
  const out = await open(temp, 'wx');
  try {
    let held = '';
    const put = async (text: string) => {
      held += text;
      if (held.length < chunkBytes) return;
      hash.update(held);
      await out.writeFile(held);
      held = '';
    };
    const list = async (batches: AsyncIterable<string[]>) => {
      let first = true;
      for await (const batch of batches) {
        await put(`${first ? '' : ','}${batch.join(',')}`);
        first = false;
      }
    };
    // As JSON.stringify writes `{ files, skipped? }`: no spaces, `skipped` only when there is one.
    await put('{"files":[');
    await list(files.sorted());
    await put(']');
    if (skipped.count > 0) {
      await put(',"skipped":[');
      await list(skipped.sorted());
      await put(']');
    }
    held += '}\n';
    hash.update(held);
    await out.writeFile(held);
    await out.sync();
  } catch (error) {
    await out.close();
    await rm(temp, { force: true });
    throw error;
  }
  await out.close();
  const ref = hash.digest('hex');
  const path = `${folder}/${ref}.json`;
  try {
    if (await exists(path)) await rm(temp, { force: true });
    else await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return ref;
}

/** Every item of an async iterable (Node 20 has no Array.fromAsync). */
export async function listOf<T>(items: AsyncIterable<T>): Promise<T[]> {
  const list: T[] = [];
  for await (const item of items) list.push(item);
  return list;
}

export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

type List = 'files' | 'skipped';

/**
 * The entries of one list of a manifest file (`files` or `skipped`), in order, each cut out of the
 * text as it is read (a chunk at a time) and parsed alone. The whole text is checked as it passes:
 * anything but what the store writes (a cut, garbage, an entry out of order) is an error naming
 * the snapshot and the byte, never a shorter list.
 */
export function manifestList(path: string, ref: string, list: 'files'): AsyncGenerator<ManifestEntry>;
export function manifestList(path: string, ref: string, list: 'skipped'): AsyncGenerator<SkippedFile>;
export async function* manifestList(
  path: string,
  ref: string,
  list: List,
): AsyncGenerator<ManifestEntry | SkippedFile> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch {
    throw new ClassifiedError('internal', `snapshot ${ref} is not in ${dirname(dirname(path))}`);
  }
  const text = new ManifestText(file, ref);
  try {
    await text.literal('{', '"files"', ':', '[');
    yield* text.entries(list === 'files', isFile);
    if ((await text.next()) === ',') {
      await text.literal(',', '"skipped"', ':', '[');
      yield* text.entries(list === 'skipped', isSkipped);
    }
    await text.literal('}');
    await text.end();
  } finally {
    await file.close();
  }
}

const isFile = (value: Record<string, unknown>): value is ManifestEntry & Record<string, unknown> =>
  typeof value.path === 'string' && Number.isInteger(value.mode) && typeof value.blob === 'string';

const isSkipped = (value: Record<string, unknown>): value is SkippedFile & Record<string, unknown> =>
  typeof value.path === 'string' && typeof value.size === 'number';

const whitespace = new Set([0x20, 0x0a, 0x0d, 0x09]);
const [quote, backslash, openBrace, closeBrace] = [0x22, 0x5c, 0x7b, 0x7d];

/**
 * A manifest's bytes read a chunk at a time, with a position. The structure (braces, brackets,
 * quotes, backslashes, commas) is ASCII, which UTF-8 never uses inside another character, so the
 * bytes are scanned as they are and only an entry's own bytes are decoded.
 */
class ManifestText {
  private bytes = Buffer.alloc(0);
  private pos = 0;
  /** The file offset of `bytes[0]`. */
  private base = 0;
  private ended = false;

  constructor(
    private readonly file: FileHandle,
    private readonly ref: string,
  ) {}

  get offset(): number {
    return this.base + this.pos;
  }

  fail(at: number, what: string): never {
    throw new ClassifiedError(
      'internal',
      `snapshot ${this.ref}: its manifest is not one the store writes (${what} at byte ${at})`,
    );
  }

  /** Reads another chunk after what is left; false at the end of the file. */
  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const chunk = Buffer.alloc(chunkBytes);
    const { bytesRead } = await this.file.read(chunk, 0, chunkBytes, null);
    if (bytesRead === 0) {
      this.ended = true;
      return false;
    }
    this.base += this.pos;
    this.bytes = Buffer.concat([this.bytes.subarray(this.pos), chunk.subarray(0, bytesRead)]);
    this.pos = 0;
    return true;
  }

  /** The next character past whitespace (not taken), or undefined at the end. */
  async next(): Promise<string | undefined> {
    for (;;) {
      while (this.pos < this.bytes.length && whitespace.has(this.bytes[this.pos]!)) this.pos++;
      if (this.pos < this.bytes.length) return String.fromCharCode(this.bytes[this.pos]!);
      if (!(await this.more())) return undefined;
    }
  }

  /** Takes the tokens (ASCII), each past whitespace, or fails. */
  async literal(...tokens: string[]): Promise<void> {
    for (const token of tokens) {
      await this.next();
      for (const char of token) {
        const got =
          this.pos < this.bytes.length || (await this.more())
            ? String.fromCharCode(this.bytes[this.pos]!)
            : undefined;
        if (got !== char)
          this.fail(
            this.offset,
            got === undefined ? `the end where '${token}' was due` : `'${got}' where '${token}' was due`,
          );
        this.pos++;
      }
    }
  }

  /** Takes the newline that ends a manifest, which must be the end of the file. */
  async end(): Promise<void> {
    if (this.pos >= this.bytes.length && !(await this.more()))
      this.fail(this.offset, 'the end where a newline was due');
    if (this.bytes[this.pos] !== 0x0a) this.fail(this.offset, 'no newline after the manifest');
    this.pos++;
    if (this.pos < this.bytes.length || (await this.more()))
      this.fail(this.offset, 'text after the manifest');
  }

  /** The entries of a list whose `[` is taken, to its `]`; parsed and given when `keep`, else only passed. */
  async *entries<T extends { path: string }>(
    keep: boolean,
    valid: (value: Record<string, unknown>) => value is T & Record<string, unknown>,
  ): AsyncGenerator<T> {
    if ((await this.next()) === ']') {
      this.pos++;
      return;
    }
    let last: string | undefined;
    for (;;) {
      if ((await this.next()) !== '{') this.fail(this.offset, 'no entry');
      const at = this.offset;
      const bytes = await this.object();
      if (keep) {
        let value: unknown;
        try {
          value = JSON.parse(bytes.toString('utf8'));
        } catch {
          this.fail(at, 'an entry that is not JSON');
        }
        if (typeof value !== 'object' || value === null || !valid(value as Record<string, unknown>))
          this.fail(at, 'an entry without its path, mode, blob or size');
        const entry = value as T;
        if (last !== undefined && entry.path < last) this.fail(at, 'an entry out of path order');
        last = entry.path;
        yield entry;
      }
      const after = await this.next();
      this.pos++;
      if (after === ']') return;
      if (after !== ',')
        this.fail(
          this.offset - 1,
          after === undefined ? 'the end inside a list' : `'${after}' between entries`,
        );
    }
  }

  /** The bytes of the object starting at the position, taken: up to its matching brace, outside strings. */
  private async object(): Promise<Buffer> {
    let depth = 0;
    let inString = false;
    let i = this.pos;
    for (;;) {
      if (i >= this.bytes.length) {
        const from = i - this.pos;
        if (!(await this.more())) this.fail(this.base + i, 'the end inside an entry');
        i = this.pos + from;
        continue;
      }
      if (inString) {
        // To the next quote at once (most of an entry is its strings); it ends the string unless
        // an odd number of backslashes escapes it.
        const end = this.bytes.indexOf(quote, i);
        if (end < 0) {
          i = this.bytes.length;
          continue;
        }
        let backslashes = 0;
        while (this.bytes[end - 1 - backslashes] === backslash) backslashes++;
        inString = backslashes % 2 === 1;
        i = end + 1;
        continue;
      }
      const byte = this.bytes[i++]!;
      if (byte === quote) inString = true;
      else if (byte === openBrace) depth++;
      else if (byte === closeBrace && --depth === 0) {
        const bytes = this.bytes.subarray(this.pos, i);
        this.pos = i;
        return bytes;
      }
    }
  }
}

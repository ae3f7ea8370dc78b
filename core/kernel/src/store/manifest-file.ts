import { createHash } from 'node:crypto';
import { access, type FileHandle, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SkippedFile } from '../contracts/index.js';
import { ClassifiedError } from '../contracts/index.js';
import type { SortedSpill } from './sorted-spill.js';

// A snapshot's manifest, written and read as a stream: the entries of a workspace of a million
// files are never a list in memory. The text is exactly what `manifestText` makes of the same
// entries, so refs do not change and manifests of older runs stay readable.

/** Bytes of a manifest read or written at once. */
const chunkBytes = 64 * 1024;

/** One line of a snapshot manifest. */
export interface ManifestEntry {
  path: string;
  mode: number;
  /** sha256 of the file's bytes: the name of its blob. */
  blob: string;
}

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

import { createReadStream } from 'node:fs';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/**
 * A regular file as a snapshot saw it: its blob, and the lstat fields that change whenever its
 * bytes do. A process in the sandbox can set a file's times back (utimes) but not its ctime,
 * which the kernel sets on every change from its own clock.
 */
export interface Stamp {
  blob: string;
  size: number;
  mode: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * Orders two workspace paths as walkWorkspace visits them: a folder's own entries by name, then
 * each of its folders' trees in turn by name. Paths in one folder compare by name; a path in a
 * folder comes before every path below that folder's subfolders.
 */
export function walkOrder(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  let i = 0;
  while (i < left.length && i < right.length && left[i] === right[i]) i++;
  if (i === left.length && i === right.length) return 0;
  // One path's folder is where the other leaves it: that one is listed before its folder is left.
  if (i === left.length - 1 && i < right.length - 1) return -1;
  if (i === right.length - 1 && i < left.length - 1) return 1;
  const x = left[i] ?? '';
  const y = right[i] ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The stamps of a snapshot's files kept on disk, in walk order, not in memory: a workspace of a
 * million files would otherwise hold a million records between two snapshots. Written a folder at a
 * time as the walk leaves it; read back by the next snapshot's walk, which asks in the same order,
 * so one pass over the file answers every question.
 */
export class StampFile {
  private constructor(readonly path: string) {}

  /** A file to write stamps to (named by the process, so an interrupted run's are told apart). */
  static async create(dir: string, name: string): Promise<{ file: StampFile; writer: StampWriter }> {
    const path = `${dir}/${name}`;
    const handle = await open(path, 'wx', 0o600);
    return { file: new StampFile(path), writer: new StampWriter(handle) };
  }

  reader(): StampReader {
    return new StampReader(this.path);
  }

  remove(): Promise<void> {
    return rm(this.path, { force: true });
  }
}

/** Appends one folder's stamps at a time, sorted by name (see walkOrder). */
export class StampWriter {
  private pending = '';

  constructor(private readonly handle: FileHandle) {}

  async folder(stamps: Array<[string, Stamp]>): Promise<void> {
    stamps.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [path, s] of stamps)
      this.pending += `${JSON.stringify([path, s.blob, s.size, s.mode, s.ino, s.mtimeMs, s.ctimeMs])}\n`;
    // Written in blocks of about 64 KiB: one call per folder of a few files would be many.
    if (this.pending.length >= 65_536) await this.flush();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle.close();
  }

  private async flush(): Promise<void> {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    await this.handle.write(text);
  }
}

/** Answers, in walk order, which stamp a path had: one pass over the file. */
export class StampReader {
  private readonly lines: AsyncIterator<string>;
  private current: [string, Stamp] | undefined;
  private done = false;

  constructor(path: string) {
    const input = createReadStream(path, { encoding: 'utf8', highWaterMark: 65_536 });
    this.lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
  }

  /** The stamp of `path`; paths must be asked in walk order (asking an earlier one finds nothing). */
  async find(path: string): Promise<Stamp | undefined> {
    for (;;) {
      if (this.current === undefined) {
        if (this.done) return undefined;
        const next = await this.lines.next();
        if (next.done) {
          this.done = true;
          return undefined;
        }
        const [p, blob, size, mode, ino, mtimeMs, ctimeMs] = JSON.parse(next.value) as [
          string,
          string,
          number,
          number,
          number,
          number,
          number,
        ];
        this.current = [p, { blob, size, mode, ino, mtimeMs, ctimeMs }];
      }
      const order = walkOrder(this.current[0], path);
      if (order > 0) return undefined;
      const stamp = this.current[1];
      this.current = undefined;
      if (order === 0) return stamp;
    }
  }

  async close(): Promise<void> {
    this.done = true;
    await this.lines.return?.();
  }
}

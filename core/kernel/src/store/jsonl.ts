import { appendFileSync, closeSync, openSync, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/**
 * An append-only JSON Lines file. Each record is one `appendFileSync` of one line, so records
 * keep their order and a crash can cut at most the last line; a cut line is closed off with a
 * newline before the next append, so later records stay readable.
 */
export class JsonlAppender {
  private checked = false;

  constructor(readonly path: string) {}

  append(record: unknown): void {
    if (!this.checked) {
      this.checked = true;
      if (endsMidLine(this.path)) appendFileSync(this.path, '\n');
    }
    appendFileSync(this.path, `${JSON.stringify(record)}\n`);
  }
}

function endsMidLine(path: string): boolean {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return false;
  }
  if (size === 0) return false;
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** Records of a JSON Lines file; lines that do not parse (a write cut by a crash) are skipped. */
export async function readJsonl<T>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: T[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      // A line cut by a crash; the rest of the file is intact.
    }
  }
  return records;
}

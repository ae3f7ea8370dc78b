import { appendFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Skeleton } from './structural.js';

export interface Meta {
  turns: number;
  sessions: number;
  restarts: number;
  compactions: number;
  briefs: number;
  forecastFailures: number;
  extractionFailures: number;
  stateBytes: number;
  records: number;
  edges: number;
}

const emptyMeta: Meta = {
  turns: 0,
  sessions: 0,
  restarts: 0,
  compactions: 0,
  briefs: 0,
  forecastFailures: 0,
  extractionFailures: 0,
  stateBytes: 0,
  records: 0,
  edges: 0,
};

async function readJson<T>(path: string, fallback: T): Promise<T> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  return text === undefined ? fallback : (JSON.parse(text) as T);
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(value, null, 1)}\n`);
}

/** Total bytes of the files under `dir`. */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await directoryBytes(path) : (await stat(path)).size;
  }
  return total;
}

/** ProjectGuard's files in the trial's memory directory (outside the scored workspace). */
export class StateFiles {
  constructor(readonly root: string) {}

  get semantic(): string {
    return join(this.root, 'semantic');
  }

  skeleton(): Promise<Skeleton | undefined> {
    return readJson<Skeleton | undefined>(join(this.root, 'structural', 'skeleton.json'), undefined);
  }

  saveSkeleton(skeleton: Skeleton): Promise<void> {
    return writeJson(join(this.root, 'structural', 'skeleton.json'), skeleton);
  }

  manifest(): Promise<Record<string, string> | undefined> {
    return readJson<Record<string, string> | undefined>(
      join(this.root, 'structural', 'manifest.json'),
      undefined,
    );
  }

  saveManifest(manifest: Record<string, string>): Promise<void> {
    return writeJson(join(this.root, 'structural', 'manifest.json'), manifest);
  }

  async requests(): Promise<{ turn: number; text: string }[]> {
    const text = await readFile(join(this.root, 'history', 'requests.jsonl'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { turn: number; text: string });
  }

  async log(file: string, entry: unknown): Promise<void> {
    await mkdir(join(this.root, 'history'), { recursive: true });
    await appendFile(join(this.root, 'history', file), `${JSON.stringify(entry)}\n`);
  }

  async saveBrief(turn: number, text: string): Promise<void> {
    const path = join(this.root, 'history', 'briefs', `turn-${String(turn + 1).padStart(4, '0')}.md`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${text}\n`);
  }

  meta(): Promise<Meta> {
    return readJson(join(this.root, 'meta.json'), { ...emptyMeta });
  }

  saveMeta(meta: Meta): Promise<void> {
    return writeJson(join(this.root, 'meta.json'), meta);
  }
}

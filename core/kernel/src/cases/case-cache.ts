import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { writeFileAtomic } from '../store/atomic.js';

/**
 * The kernel modules whose code decides what a case file reads as and how it is cached: a change
 * to any of them (or to the zod and yaml versions) gives every case a new cache key. A test checks
 * that this list is `read-case` and every module it imports, directly or not.
 */
export const caseFormatModules = [
  'cases/case-cache',
  'cases/cli-case',
  'cases/http-case',
  'cases/read-case',
  'cases/yaml-schema',
  'config/config-error',
  'config/schema-issues',
  'config/suggest',
  'config/timer-limit',
  'config/yaml-file',
  'store/atomic',
  'text/fs-reason',
] as const;

/** The libraries whose behaviour is part of a case's reading; their versions are in the key. */
const caseFormatLibraries = ['zod', 'yaml'] as const;

/** Entries kept in memory at most; beyond, the oldest go (the disk keeps them). */
const memoryEntries = 10_000;

const checksumBytes = 32;

/**
 * Where longhaul keeps what it can compute again: `LONGHAUL_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/longhaul`, else `~/.cache/longhaul`; undefined when `LONGHAUL_CACHE_DIR` is
 * `off`.
 */
export function longhaulCacheDir(env: Record<string, string | undefined> = process.env): string | undefined {
  const chosen = env.LONGHAUL_CACHE_DIR;
  if (chosen === 'off') return undefined;
  if (chosen) return chosen;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'longhaul');
}

/**
 * Validated case files by the hash of their text, so that a task's cases are parsed and checked
 * once, not at every load and by every scorer. An entry is found only by a key made of the
 * file's exact text and the code that reads it (`caseFormatModules`, the zod and yaml versions),
 * so an edited file or a changed format is read afresh, never served stale. Only files that
 * passed are kept: a bad file is parsed each time and gets its located error.
 *
 * On disk an entry is `<dir>/cases/<key>`: a sha256 of the payload, then the payload (the key and
 * the case, v8-serialized). An entry whose checksum or key does not match (a torn or corrupted
 * file) is ignored and written again. Entries are written to a temp file and renamed, so two
 * processes writing one entry at once leave one whole entry. Failing to read or write the
 * directory (read-only, full) only means no caching. Entries are also kept in memory for the
 * process; every `get` returns a fresh copy.
 */
export class CaseFileCache<T> {
  readonly #memory = new Map<string, Buffer>();
  readonly #dir: string | undefined;
  #fingerprint?: string;

  /** `dir`: the longhaul cache directory (default `longhaulCacheDir()`); null keeps entries in memory only. */
  constructor(dir?: string | null) {
    const root = dir === undefined ? longhaulCacheDir() : (dir ?? undefined);
    this.#dir = root === undefined ? undefined : join(root, 'cases');
  }

  /** The cache key of a case file's text. */
  key(text: string): string {
    this.#fingerprint ??= formatFingerprint();
    return createHash('sha256').update(this.#fingerprint).update('\0').update(text).digest('hex');
  }

  /** The case cached under `key`, or undefined. */
  get(key: string): T | undefined {
    let payload = this.#memory.get(key);
    if (!payload && this.#dir) {
      payload = this.#readEntry(key);
      if (payload) this.#remember(key, payload);
    }
    return payload ? (deserialize(payload) as { value: T }).value : undefined;
  }

  /** Keeps `value` (a validated case) under `key`, in memory and on disk. */
  async set(key: string, value: T): Promise<void> {
    const payload = serialize({ key, value });
    this.#remember(key, payload);
    if (!this.#dir) return;
    const checksum = createHash('sha256').update(payload).digest();
    await writeFileAtomic(join(this.#dir, key), Buffer.concat([checksum, payload]), { flush: false }).catch(
      () => undefined,
    );
  }

  #readEntry(key: string): Buffer | undefined {
    let data: Buffer;
    try {
      data = readFileSync(join(this.#dir!, key));
    } catch {
      return undefined;
    }
    if (data.length <= checksumBytes) return undefined;
    const payload = data.subarray(checksumBytes);
    const checksum = createHash('sha256').update(payload).digest();
    if (!checksum.equals(data.subarray(0, checksumBytes))) return undefined;
    try {
      const entry = deserialize(payload) as { key?: unknown } | null;
      return entry?.key === key ? payload : undefined;
    } catch {
      return undefined;
    }
  }

  #remember(key: string, payload: Buffer): void {
    this.#memory.delete(key);
    this.#memory.set(key, payload);
    if (this.#memory.size > memoryEntries) this.#memory.delete(this.#memory.keys().next().value!);
  }
}

/** A hash of the code that reads case files: the kernel's modules in `caseFormatModules` and the library versions. */
function formatFingerprint(): string {
  const hash = createHash('sha256');
  // This module runs from dist (.js) or, in the kernel's own tests, from src (.ts).
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  for (const name of caseFormatModules) {
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(new URL(`../${name}${extension}`, import.meta.url)));
  }
  const require = createRequire(import.meta.url);
  for (const library of caseFormatLibraries) {
    const { version } = require(`${library}/package.json`) as { version: string };
    hash.update(`\0${library}@${version}`);
  }
  return hash.digest('hex');
}

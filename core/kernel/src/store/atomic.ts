import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that readers see the old content or the new one, never a part: the data goes
 * to a temp file in the same directory (same filesystem, so the rename is atomic) and is renamed
 * over the target. `flush: false` skips the fsync, for files that can be computed again (a crash may
 * then leave the new name with partial data, so their readers must check what they read).
 */
export async function writeFileAtomic(
  path: string,
  /** Chunks (a diff's parts) are written as they come. */
  data: string | Uint8Array | AsyncIterable<string | Uint8Array>,
  { flush = true }: { flush?: boolean } = {},
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, data, { flush });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

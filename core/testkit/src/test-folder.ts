import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished, TestRunner } from 'vitest';

/**
 * A new folder in the temp directory, named `prefix` and a random part, removed when the test
 * that made it ends, passed or failed. One made outside a test (in beforeAll) is its maker's to
 * remove; the test run's own temp folder (vitest.shared.ts) takes what is left at the end.
 */
export async function testFolder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (TestRunner.getCurrentTest() !== undefined)
    onTestFinished(() => rm(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}

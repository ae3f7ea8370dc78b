import { execa } from 'execa';
import { it } from 'vitest';
import { defaultImage } from '../src/index.js';

/**
 * Whether the Docker tests can run: a daemon and a longhaul base image. Without them the tests
 * are skipped with the reason, except in CI (CI set), where a missing daemon must fail the run.
 */
async function probe(): Promise<{ missing?: string; image?: string }> {
  const ping = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], { reject: false });
  if (ping.exitCode !== 0)
    return {
      missing: `no Docker daemon (${
        String(ping.stderr || ping.message)
          .trim()
          .split('\n')[0]
      }): start dockerd`,
    };
  try {
    return { image: await defaultImage() };
  } catch (error) {
    return { missing: (error as Error).message };
  }
}

const probed = await probe();
export const dockerMissing = probed.missing;
export const image = probed.image ?? '';

if (dockerMissing !== undefined && process.env.CI) {
  throw new Error(`CI is set and the Docker tests cannot run: ${dockerMissing}`);
}

/** Registers one skipped test that says why, when Docker is not there. */
export function skipWithoutDocker(): boolean {
  if (dockerMissing === undefined) return false;
  it.skip(`docker tests skipped: ${dockerMissing}`, () => {});
  return true;
}

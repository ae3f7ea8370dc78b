import Docker from 'dockerode';
import { it } from 'vitest';
import { baseImageRef } from '../src/index.js';

/**
 * Whether the Docker tests can run: a daemon and the base image. Without them the tests are
 * skipped with the reason, except in CI (CI set), where a missing daemon must fail the run.
 */
async function probe(): Promise<string | undefined> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (error) {
    return `no Docker daemon (${(error as Error).message}): start dockerd to run these tests`;
  }
  const image = await docker
    .getImage(baseImageRef())
    .inspect()
    .catch(() => undefined);
  if (image === undefined)
    return `the base image ${baseImageRef()} is missing: run \`longhaul images build\``;
  return undefined;
}

export const dockerMissing = await probe();

if (dockerMissing !== undefined && process.env.CI) {
  throw new Error(`CI is set and the Docker tests cannot run: ${dockerMissing}`);
}

/** Registers one skipped test that says why, when Docker is not there. */
export function skipWithoutDocker(): boolean {
  if (dockerMissing === undefined) return false;
  it.skip(`docker tests skipped: ${dockerMissing}`, () => {});
  return true;
}

import { type Requirements, requirementsProbe } from '@longhaul/core';
import type Docker from 'dockerode';
import { labels, ownerLabel } from './labels.js';

/** Time a probe container may take; it runs a few `command -v` and one python3 start. */
const probeTimeoutMs = 60_000;

/**
 * The output of the kernel's requirements probe (read it with `missingRequirements`), run in a
 * throwaway container of `image` (no network, removed after) with the `env` every sandbox command gets.
 */
export async function probeImage(
  docker: Docker,
  image: string,
  requires: Requirements,
  env: Record<string, string>,
): Promise<string> {
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: [],
    Cmd: requirementsProbe(requires),
    Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
    Tty: true,
    // Labelled like a run's containers, so `longhaul prune` removes one a killed process left.
    Labels: { [labels.run]: 'probe', [labels.purpose]: 'probe', [labels.owner]: ownerLabel() },
    HostConfig: { NetworkMode: 'none', SecurityOpt: ['no-new-privileges'] },
  });
  try {
    await container.start();
    const timer = setTimeout(() => container.kill().catch(() => undefined), probeTimeoutMs);
    try {
      await container.wait();
    } finally {
      clearTimeout(timer);
    }
    const output = (await container.logs({ stdout: true, stderr: true })) as unknown as Buffer;
    return output.toString('utf8').replaceAll('\r', '');
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

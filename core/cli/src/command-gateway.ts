import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandGateway } from '@longhaul/core';
import { createGateway, type GatewayConfigInput } from '@longhaul/gateway';

/**
 * A gateway for a contributed command's own model calls (an audit, a classification): its
 * recordings and logs go to a temporary run directory that `close` removes.
 */
export async function openCommandGateway(
  models: unknown,
  options: { baseDir: string; configFile?: string },
): Promise<CommandGateway> {
  const runDir = await mkdtemp(join(tmpdir(), 'longhaul-command-'));
  let gateway: Awaited<ReturnType<typeof createGateway>>;
  try {
    gateway = await createGateway({ models } as GatewayConfigInput, { runDir, ...options });
  } catch (error) {
    await rm(runDir, { recursive: true, force: true });
    throw error;
  }
  const stop = gateway.close.bind(gateway);
  gateway.close = async () => {
    await stop();
    await rm(runDir, { recursive: true, force: true });
  };
  return gateway;
}

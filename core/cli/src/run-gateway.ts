import type { RunOptions } from '@longhaul/core';
import type { GatewayConfigInput } from '@longhaul/gateway';

/**
 * Starts the run's model gateway from the experiment's `models:` (on loopback; keys stay on the
 * host). The gateway is imported here, so a run without `models:` never loads it.
 */
export const openGateway: NonNullable<RunOptions['openGateway']> = async ({
  run,
  models,
  prices,
  file,
  log,
}) => {
  const { createGateway } = await import('@longhaul/gateway');
  return createGateway({ models, ...(prices === undefined ? {} : { prices }) } as GatewayConfigInput, {
    runDir: run.runDir,
    baseDir: run.baseDir,
    configFile: file,
    log,
  });
};

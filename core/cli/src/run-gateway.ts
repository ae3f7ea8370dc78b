import type { RunOptions } from '@longhaul/core';
import { createGateway, type GatewayConfigInput } from '@longhaul/gateway';

/** Starts the run's model gateway from the experiment's `models:` (on loopback; keys stay on the host). */
export const openGateway: NonNullable<RunOptions['openGateway']> = ({ run, models, prices, file, log }) =>
  createGateway({ models, ...(prices === undefined ? {} : { prices }) } as GatewayConfigInput, {
    runDir: run.runDir,
    baseDir: run.baseDir,
    configFile: file,
    log,
  });

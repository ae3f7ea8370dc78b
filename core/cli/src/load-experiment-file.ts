import { type LoadedExperiment, loadExperiment } from '@longhaul/core';
import { checkGatewayConfig } from '@longhaul/gateway';

/**
 * Loads an experiment as `run` and `validate` see it: `models:` and `prices:` checked by the
 * gateway (backends, key variables set, files present), every problem located in the file.
 */
export function loadExperimentFile(file: string, set: string[]): Promise<LoadedExperiment> {
  return loadExperiment(file, { set, checkModels: checkGatewayConfig });
}

import { type LoadExperimentOptions, type LoadedExperiment, loadExperiment } from '@longhaul/core';
import { checkGatewayConfig } from '@longhaul/gateway';
import { installDirOption } from './plugin-search.js';

/**
 * Loads an experiment as `run` and `validate` see it: plugins found where `longhaul` is installed
 * too, `models:` and `prices:` checked by the gateway (backends, key variables set, files
 * present), every problem located in the file.
 */
export function loadExperimentFile(
  file: string,
  set: string[],
  selection: Pick<LoadExperimentOptions, 'tasks' | 'trialLimit'> = {},
): Promise<LoadedExperiment> {
  return loadExperiment(file, { set, ...selection, checkModels: checkGatewayConfig, ...installDirOption() });
}

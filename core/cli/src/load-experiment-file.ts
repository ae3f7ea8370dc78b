import { type LoadExperimentOptions, type LoadedExperiment, loadExperiment } from '@longhaul/core';
import { installDirOption } from './plugin-search.js';

/**
 * Loads an experiment as `run` and `validate` see it: plugins found where `longhaul` is installed
 * too, `models:` and `prices:` checked by the gateway (backends, key variables set, files
 * present), every problem located in the file. The gateway is imported only for an experiment
 * that has `models:` or `prices:`.
 */
export function loadExperimentFile(
  file: string,
  set: string[],
  selection: Pick<LoadExperimentOptions, 'tasks' | 'trialLimit'> = {},
): Promise<LoadedExperiment> {
  return loadExperiment(file, {
    set,
    ...selection,
    checkModels: async (section, context) =>
      (await import('@longhaul/gateway')).checkGatewayConfig(section, context),
    ...installDirOption(),
  });
}

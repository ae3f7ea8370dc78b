import {
  ConfigError,
  checkExperiment,
  isConfigError,
  type LoadExperimentOptions,
  type LoadedExperiment,
  loadExperiment,
} from '@longhaul/core';
import { installDirOption } from './plugin-search.js';

/**
 * Loads an experiment as `run` and `validate` see it: plugins found where `longhaul` is installed
 * too, `models:` and `prices:` checked by the gateway (backends, key variables set, files
 * present, scripted models' tool calls against the harnesses' tools), every problem located in
 * the file. The gateway is imported only for an experiment
 * that has `models:` or `prices:`. When tasks have issues of their own, the environment is still
 * asked about every task a source could build, and its answers join the same ConfigError.
 */
export async function loadExperimentFile(
  file: string,
  set: string[],
  selection: Pick<LoadExperimentOptions, 'tasks' | 'trialLimit'> & { model?: string } = {},
): Promise<LoadedExperiment> {
  const { model, ...rest } = selection;
  try {
    return await loadExperiment(file, {
      set,
      ...rest,
      ...(model === undefined
        ? {}
        : { model: await (await import('@longhaul/gateway')).modelFromFlag(model, process.cwd()) }),
      checkModels: async (section, context) =>
        (await import('@longhaul/gateway')).checkGatewayConfig(section, context),
      checkToolCalls: async (models, uses, context) =>
        (await import('@longhaul/gateway')).checkScriptedToolCalls(models, uses, context),
      ...installDirOption(),
    });
  } catch (error) {
    const experiment = isConfigError(error) ? error.loaded?.experiment : undefined;
    if (!experiment) throw error;
    // Tasks with issues of their own are put to the environment too, so what it lacks for them
    // (and for every other task) is listed in the same report.
    const more = await checkExperiment(experiment).then(
      () => [],
      (failure: unknown) => {
        if (isConfigError(failure)) return failure.issues;
        throw failure;
      },
    );
    throw new ConfigError([...(error as ConfigError).issues, ...more]);
  }
}

import { join } from 'node:path';
import { type LoadedPlugin, loadExperiment, PluginRegistry } from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experiments, makeProject } from '../fixtures/config/project.js';

let cwd: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir: cwd, remove } = await makeProject());
});
afterAll(() => remove());

/** The fixture plugins, with `warnings` added to the environments. */
async function warningRegistry(): Promise<PluginRegistry> {
  const { registry } = await loadExperiment(join(experiments, 'minimal.yaml'), { cwd, env: {} });
  const warn = (plugin: LoadedPlugin): LoadedPlugin =>
    plugin.definition.kind !== 'environment'
      ? plugin
      : {
          ...plugin,
          definition: {
            ...plugin.definition,
            warnings: (options: Record<string, unknown>) => [
              `environment '${plugin.definition.id}' with ${JSON.stringify(options)} isolates nothing`,
              `environment '${plugin.definition.id}' warns twice, printed once`,
              `environment '${plugin.definition.id}' warns twice, printed once`,
            ],
          },
        };
  return PluginRegistry.of(registry.list().map(warn));
}

describe('plugin warnings', () => {
  it('collects the warnings of the plugins an experiment uses, with their options, each once', async () => {
    const registry = await warningRegistry();
    const experiment = await loadExperiment(join(experiments, 'minimal.yaml'), { cwd, env: {}, registry });
    expect(experiment.warnings).toEqual([
      "environment 'local' with {} isolates nothing",
      "environment 'local' warns twice, printed once",
    ]);
  });

  it('has none for plugins that are installed but not used, and none by default', async () => {
    const registry = await warningRegistry();
    const docker = await loadExperiment(join(experiments, 'minimal.yaml'), {
      cwd,
      env: {},
      registry,
      set: ['environment={id: docker, options: {image: alpine}}'],
    });
    expect(docker.warnings).toEqual([
      `environment 'docker' with {"image":"alpine"} isolates nothing`,
      "environment 'docker' warns twice, printed once",
    ]);
    const plain = await loadExperiment(join(experiments, 'minimal.yaml'), { cwd, env: {} });
    expect(plain.warnings).toEqual([]);
  });
});

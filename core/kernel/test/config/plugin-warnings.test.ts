import { join } from 'node:path';
import {
  imageNotRunWarnings,
  type LoadedPlugin,
  loadExperiment,
  PluginRegistry,
  type PluginUse,
} from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experiments, fixtureRegistry, makeProject } from '../fixtures/config/project.js';

let cwd: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir: cwd, remove } = await makeProject());
});
afterAll(() => remove());

/** The fixture plugins, with `warnings` added to the environments. */
function warningRegistry(): Promise<PluginRegistry> {
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
  return fixtureRegistry(cwd, warn);
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

  it('gives each use the selected tasks, so an environment can warn about what they ask for', async () => {
    const { registry } = await loadExperiment(join(experiments, 'minimal.yaml'), { cwd, env: {} });
    const seen: string[][] = [];
    const withTasks = PluginRegistry.of(
      registry.list().map((plugin) =>
        plugin.definition.kind !== 'environment'
          ? plugin
          : {
              ...plugin,
              definition: {
                ...plugin.definition,
                warnings: (_options: unknown, use: PluginUse) => {
                  seen.push(use.tasks.map((task) => `${task.source}:${task.id}`));
                  return imageNotRunWarnings(plugin.definition.id, [
                    ...use.tasks,
                    { id: 'shop-1', source: 'swe-steps', environment: { image: 'shop:1' } },
                  ]);
                },
              },
            },
      ),
    );
    const experiment = await loadExperiment(join(experiments, 'minimal.yaml'), {
      cwd,
      env: {},
      registry: withTasks,
      set: ['tasks=[calc]'],
    });
    expect(seen).toEqual([experiment.tasks.map((task) => `${task.source}:${task.id}`)]);
    expect(experiment.tasks.map((task) => task.id)).toEqual(['calc']);
    expect(experiment.warnings).toEqual([
      "source swe-steps: task shop-1 asks for image shop:1; environment local runs them with the host's interpreter and packages instead — use environment: docker for the same interpreter and packages",
    ]);
  });
});

describe('plugin guarantees', () => {
  it('collects what the plugins in use guarantee, with their options, each once, apart from warnings', async () => {
    const registry = await fixtureRegistry(cwd, (plugin) =>
      plugin.definition.kind !== 'environment'
        ? plugin
        : {
            ...plugin,
            definition: {
              ...plugin.definition,
              guarantees: (options: Record<string, unknown>) => [
                `environment '${plugin.definition.id}' with ${JSON.stringify(options)} runs commands unprivileged`,
                `environment '${plugin.definition.id}' says it twice, printed once`,
                `environment '${plugin.definition.id}' says it twice, printed once`,
              ],
            },
          },
    );
    const experiment = await loadExperiment(join(experiments, 'minimal.yaml'), { cwd, env: {}, registry });
    expect(experiment.guarantees).toEqual([
      "environment 'local' with {} runs commands unprivileged",
      "environment 'local' says it twice, printed once",
    ]);
    expect(experiment.warnings).toEqual([]);
    const plain = await loadExperiment(join(experiments, 'minimal.yaml'), { cwd, env: {} });
    expect(plain.guarantees).toEqual([]);
  });
});

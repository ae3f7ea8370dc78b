import { join } from 'node:path';
import {
  type ConfigError,
  type LoadedPlugin,
  loadExperiment,
  type PluginRegistry,
  scoreOption,
} from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { experiments, fixtureRegistry, useProject } from '../fixtures/config/project.js';

const project = useProject();

/** The fixture plugins, the summary reporter naming scores: columns, and a default of its own. */
function registry(): Promise<PluginRegistry> {
  const options = z.object({
    columns: z.array(scoreOption('a column')).optional(),
    main: scoreOption('the main figure').default('judge.score'),
  });
  const withScores = (plugin: LoadedPlugin): LoadedPlugin =>
    plugin.definition.kind === 'reporter'
      ? { ...plugin, definition: { ...plugin.definition, options } }
      : plugin;
  return fixtureRegistry(project(), withScores);
}

/** The issues of loading minimal.yaml with the given --set arguments (none when it loads). */
async function issues(set: string[]): Promise<string[]> {
  try {
    await loadExperiment(join(experiments, 'minimal.yaml'), {
      cwd: project(),
      env: {},
      registry: await registry(),
      set,
    });
    return [];
  } catch (error) {
    return (error as ConfigError).issues.map(
      (issue) =>
        `${issue.file}:${issue.line}:${issue.column}: ${issue.message}${issue.suggestion ? ` → ${issue.suggestion}` : ''}`,
    );
  }
}

describe('scoreOption', () => {
  it("accepts scores of the experiment's scorers, and leaves a default name to the plugin", async () => {
    expect(
      await issues(['reporters=[{id: summary, options: {columns: [tests.strict, tests.mine]}}]']),
    ).toEqual([]);
  });

  it('a misspelt scorer is one problem: the scores an option names after it are not refused again', async () => {
    const found = await issues([
      'scorers=[tset]',
      'reporters=[{id: summary, options: {columns: [tset.strict, tset.iso, tset.core]}}]',
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain("unknown scorer 'tset'");
  });

  it('refuses a score whose scorer label the experiment lacks, suggesting the closest', async () => {
    expect(await issues(['reporters=[{id: summary, options: {columns: [tests.strict, test.iso]}}]'])).toEqual(
      [
        "--set:1:11: reporter 'summary' names score 'test.iso', but no scorer of the experiment is labelled 'test' (its scorers: tests, integrity) (the value of --set argument 1, at its character 11) → tests.iso",
      ],
    );
  });

  it('refuses a name that is not <scorer label>.<metric>', async () => {
    const found = await issues(['reporters=[{id: summary, options: {main: strict}}]']);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('expected a score name, <scorer label>.<metric>');
  });
});

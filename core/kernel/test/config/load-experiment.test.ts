import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { definePlugin, loadExperiment, PluginRegistry, tokens } from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { experiments, fixtureRegistry, fixtures, makeProject } from '../fixtures/config/project.js';

let cwd: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir: cwd, remove } = await makeProject());
});
afterAll(() => remove());

// Written apart from its braces so that the linter does not take it for a misquoted template.
const dollar = '$';

const load = (
  name: string,
  opts: { set?: string[]; env?: Record<string, string>; tasks?: string[]; trialLimit?: number } = {},
) => loadExperiment(join(experiments, name), { cwd, env: {}, ...opts });

describe('loadExperiment', () => {
  it('fills every default and names the experiment after its file', async () => {
    const experiment = await load('minimal.yaml');
    expect(experiment.name).toBe('minimal');
    expect(experiment.baseDir).toBe(experiments);
    expect(experiment.file).toBe(join(experiments, 'minimal.yaml'));
    const { config } = experiment;
    const ids = (refs: { id: string }[]) => refs.map((ref) => ref.id);
    expect(
      [config.environment, config.script, config.memory, config.scorers, config.reporters].map(ids),
      // integrity, installed in this repository, is added to every experiment (tamperSignals).
    ).toEqual([['local'], ['checkpoints'], ['none'], ['tests', 'integrity'], ['summary']]);
    expect(config).toMatchObject({ repeats: 1, concurrency: 1 });
    expect(config.limits).toEqual({
      turnSeconds: 1800,
      stepSeconds: 3600,
      turnsPerStep: 1,
      trialUsd: 0,
      onError: 'stop',
    });
    expect(experiment.tasks.map((task) => task.id)).toEqual(['wordfreq', 'wordcount', 'calc']);
    expect(experiment.conditions.map((condition) => condition.key)).toEqual(['echo/checkpoints/none']);
    expect(experiment.trials.map((trial) => trial.id)).toEqual([
      'wordfreq.echo.checkpoints.none.r1',
      'wordcount.echo.checkpoints.none.r1',
      'calc.echo.checkpoints.none.r1',
    ]);
  });

  it('tasks and trialLimit options (run --tasks, --limit) narrow the plan, and the stored experiment keeps them', async () => {
    const experiment = await load('minimal.yaml', { tasks: ['word*'], trialLimit: 1 });
    expect(experiment.tasks.map((task) => task.id)).toEqual(['wordfreq', 'wordcount']);
    expect(experiment.trials.map((trial) => trial.id)).toEqual(['wordfreq.echo.checkpoints.none.r1']);
    const stored = parse(experiment.resolved) as { tasks: string[]; trialLimit: number };
    expect(stored).toMatchObject({ tasks: ['word*'], trialLimit: 1 });
    await writeFile(join(cwd, 'stored.yaml'), experiment.resolved);
    const again = await loadExperiment(join(cwd, 'stored.yaml'), { cwd, env: {} });
    expect(again.trials.map((trial) => trial.id)).toEqual(['wordfreq.echo.checkpoints.none.r1']);
  });

  it('keeps caseWorkers in the config and the stored experiment, and refuses one below 1 with its place', async () => {
    const experiment = await load('minimal.yaml', { set: ['caseWorkers=3'] });
    expect(experiment.config.caseWorkers).toBe(3);
    expect(parse(experiment.resolved)).toMatchObject({ caseWorkers: 3 });
    expect((await load('minimal.yaml')).config.caseWorkers).toBeUndefined();
    await expect(load('minimal.yaml', { set: ['caseWorkers=0'] })).rejects.toThrow(/caseWorkers/);
  });

  it('expands tasks × harness × script × memory × repeats into trial specs', async () => {
    const experiment = await load('valid.yaml');
    expect(experiment.tasks.map((task) => task.id)).toEqual(['wordfreq', 'wordcount']);
    expect(experiment.conditions.map((condition) => condition.key)).toEqual([
      'echo/checkpoints/none',
      'echo/checkpoints/scratchpad',
      'echo/isolated/none',
      'echo/isolated/scratchpad',
      'agent#1/checkpoints/none',
      'agent#1/checkpoints/scratchpad',
      'agent#1/isolated/none',
      'agent#1/isolated/scratchpad',
      'agent#2/checkpoints/none',
      'agent#2/checkpoints/scratchpad',
      'agent#2/isolated/none',
      'agent#2/isolated/scratchpad',
    ]);
    expect(experiment.trials).toHaveLength(2 * 12 * 2);
    const trial = experiment.trials.find((t) => t.id === 'wordcount.agent-2.isolated.scratchpad.r2');
    expect(trial).toBeDefined();
    expect(trial).toMatchObject({
      runId: '',
      runDir: '',
      repeat: 2,
      task: { id: 'wordcount', steps: [{ id: 'lines' }, { id: 'words' }] },
      condition: {
        key: 'agent#2/isolated/scratchpad',
        harness: { id: 'agent', label: 'agent#2', options: { model: 'large', effort: 'high' } },
        memory: { id: 'scratch', label: 'scratchpad', options: { path: 'SCRATCH.md' } },
        environment: { id: 'local', label: 'local', options: {} },
      },
      scorers: [
        { id: 'tests', label: 'tests', options: {} },
        { id: 'integrity', label: 'integrity', options: { ignore: [] } },
      ],
      limits: { turnMs: 90_000, stepMs: 600_500, turnsPerStep: 1, trialUsd: 0, onError: 'stop' },
      plugins: ['basics', 'harnesses', 'source-list', 'scratch-memory'].map((name) =>
        join(fixtures, 'plugins', name),
      ),
      // The gateway's section is passed on as written, never interpolated.
      models: { fake: { backend: 'scripted', replies: [{ text: `${dollar}{KEEP_AS_WRITTEN}` }] } },
    });
    // Specs are plain data: they survive a JSON round trip unchanged (a queue ships them as JSON).
    expect(JSON.parse(JSON.stringify(trial))).toEqual(trial);
  });

  it('names the environment in trial ids and condition keys only when that axis varies', async () => {
    const experiment = await load('minimal.yaml', {
      set: ['environment=[local, {id: docker, options: {image: x}}]'],
    });
    expect(experiment.conditions.map((condition) => condition.key)).toEqual([
      'echo/checkpoints/none/local',
      'echo/checkpoints/none/docker',
    ]);
    expect(experiment.trials[1]?.id).toBe('wordfreq.echo.checkpoints.none.docker.r1');
  });

  it('refuses labels that would give two trials the same id', async () => {
    const set = [
      'harness=[{id: agent, label: a#1, options: {model: x}}, {id: agent, label: a-1, options: {model: y}}]',
    ];
    await expect(load('minimal.yaml', { set })).rejects.toThrow(
      /--set:1:9: harness: two trials would share the id 'wordfreq.a-1.checkpoints.none.r1'/,
    );
  });

  it('applies --set overrides before validation, turning a bare id into a ref when needed', async () => {
    const experiment = await load('minimal.yaml', {
      set: [
        'harness=agent',
        'harness.options.model=opus',
        'repeats=3',
        'tasks=calc',
        'limits.onError=continue',
      ],
    });
    expect(experiment.config.harness).toEqual([
      { id: 'agent', label: 'agent', options: { model: 'opus', effort: 'medium' } },
    ]);
    expect(experiment.trials.map((trial) => trial.id)).toEqual([
      'calc.agent.checkpoints.none.r1',
      'calc.agent.checkpoints.none.r2',
      'calc.agent.checkpoints.none.r3',
    ]);
    expect(experiment.trials[0]?.limits.onError).toBe('continue');
  });

  it('interpolates $VAR references, with defaults, from the given environment', async () => {
    const experiment = await load('env.yaml', { env: { LONGHAUL_TEST_MODEL: 'model-$1' } });
    expect(experiment.config.harness[0]?.options).toEqual({ model: 'model-$1', effort: 'high' });
    const overridden = await load('env.yaml', {
      env: { LONGHAUL_TEST_MODEL: 'm', LONGHAUL_TEST_EFFORT: 'low' },
    });
    expect(overridden.config.harness[0]?.options.effort).toBe('low');
  });

  it('resolves to YAML that loads again, from another directory, into the same trials', async () => {
    const first = await load('valid.yaml');
    const resolved = parse(first.resolved) as Record<string, unknown>;
    expect(resolved).toMatchObject({ name: 'demo', baseDir: experiments, repeats: 2, concurrency: 1 });
    expect(resolved.harness).toEqual([
      { id: 'echo', label: 'echo', options: {} },
      { id: 'agent', label: 'agent#1', options: { model: 'small', effort: 'medium' } },
      { id: 'agent', label: 'agent#2', options: { model: 'large', effort: 'high' } },
    ]);
    const copy = join(cwd, 'experiment.yaml');
    await writeFile(copy, first.resolved);
    const second = await loadExperiment(copy, { cwd, env: {} });
    expect(second.baseDir).toBe(experiments);
    expect(second.config).toEqual(first.config);
    expect(second.trials).toEqual(first.trials);
    expect(second.resolved).toBe(first.resolved);
  });

  it('keeps a literal $ literal through the resolved file', async () => {
    const first = await load('env.yaml', { env: { LONGHAUL_TEST_MODEL: `${dollar}{NOT_A_VAR}` } });
    const copy = join(cwd, 'dollar.yaml');
    await writeFile(copy, first.resolved);
    const second = await loadExperiment(copy, { cwd, env: {} });
    expect(second.config.harness[0]?.options.model).toBe(`${dollar}{NOT_A_VAR}`);
  });

  it('never writes the value of a secret-looking variable into the resolved file', async () => {
    const env = { LONGHAUL_TEST_API_KEY: 'sk-very-secret$1' };
    const reference = `${dollar}{LONGHAUL_TEST_API_KEY}`;
    const first = await load('minimal.yaml', {
      env,
      set: [`harness=agent`, `harness.options.model=${reference}`],
    });
    expect(first.config.harness[0]?.options.model).toBe('sk-very-secret$1');
    expect(first.resolved).not.toContain('sk-very-secret');
    expect(first.resolved).toContain(`model: ${reference}`);
    const copy = join(cwd, 'secret.yaml');
    await writeFile(copy, first.resolved);
    const again = await loadExperiment(copy, { cwd, env });
    expect(again.config.harness).toEqual(first.config.harness);
    await expect(loadExperiment(copy, { cwd, env: {} })).rejects.toThrow(/LONGHAUL_TEST_API_KEY is not set/);
  });

  it('reads only: the experiment folder is unchanged after loading', async () => {
    const before = await readdir(experiments);
    await load('valid.yaml');
    expect(await readdir(experiments)).toEqual(before);
  });

  describe('tamper signals', () => {
    /** The fixture plugins plus an installed `integrity` scorer. */
    const withIntegrity = async () => {
      const base = await fixtureRegistry(cwd, (plugin) => plugin);
      const others = base.list().filter((plugin) => plugin.definition.id !== 'integrity');
      const integrity = definePlugin({
        kind: 'scorer',
        id: 'integrity',
        description: 'fixture integrity',
        options: z.object({ ignore: z.array(z.string()).default([]) }).strict(),
        register(bind) {
          bind(tokens.Scorer).toConstantValue({ scope: 'step', version: '1', score: async () => [] });
        },
      });
      return PluginRegistry.of([
        ...others,
        { definition: integrity, packageName: 'fixture-integrity', version: '1.0.0', dir: cwd },
      ]);
    };
    const scorers = (experiment: { config: { scorers: { id: string }[] } }) =>
      experiment.config.scorers.map((ref) => ref.id);

    it('are scored in every experiment without opting in, once, and stored so a resume keeps them', async () => {
      const registry = await withIntegrity();
      const experiment = await loadExperiment(join(experiments, 'minimal.yaml'), { cwd, env: {}, registry });
      expect(scorers(experiment)).toEqual(['tests', 'integrity']);
      await writeFile(join(cwd, 'stored-integrity.yaml'), experiment.resolved);
      const again = await loadExperiment(join(cwd, 'stored-integrity.yaml'), { cwd, env: {}, registry });
      expect(scorers(again)).toEqual(['tests', 'integrity']);
      const listed = await loadExperiment(join(experiments, 'minimal.yaml'), {
        cwd,
        env: {},
        registry,
        set: ['scorers=[{id: integrity, options: {ignore: [a/**]}}, tests]'],
      });
      expect(listed.config.scorers.map((ref) => [ref.id, ref.options])).toEqual([
        ['integrity', { ignore: ['a/**'] }],
        ['tests', {}],
      ]);
    });

    it('are left out with tamperSignals: false, and not added where the scorer is not installed', async () => {
      const off = await loadExperiment(join(experiments, 'minimal.yaml'), {
        cwd,
        env: {},
        registry: await withIntegrity(),
        set: ['tamperSignals=false'],
      });
      expect(scorers(off)).toEqual(['tests']);
      expect(parse(off.resolved).tamperSignals).toBe(false);
      const base = await fixtureRegistry(cwd, (plugin) => plugin);
      const without = PluginRegistry.of(base.list().filter((plugin) => plugin.definition.id !== 'integrity'));
      const experiment = await loadExperiment(join(experiments, 'minimal.yaml'), {
        cwd,
        env: {},
        registry: without,
      });
      expect(scorers(experiment)).toEqual(['tests']);
    });
  });
});

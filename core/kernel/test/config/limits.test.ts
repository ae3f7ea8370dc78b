import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, formatIssue, loadExperiment, maxTimerMs } from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experiments, fixtures, makeProject } from '../fixtures/config/project.js';

let cwd: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir: cwd, remove } = await makeProject());
});
afterAll(() => remove());

const plugins = ['basics', 'harnesses', 'source-list'].map((name) => join(fixtures, 'plugins', name));

/** Writes an experiment (relative paths resolve to the fixtures) over the fixture plugins, `extra` appended, and returns its path. */
async function experiment(name: string, extra = ''): Promise<string> {
  const file = join(cwd, name);
  const head = `baseDir: ${experiments}\nplugins: ${JSON.stringify(plugins)}\nsource: list\nharness: echo\n`;
  await writeFile(file, `${head}${extra}`);
  return file;
}

async function problems(file: string, set: string[] = [], maxTrials?: number): Promise<string[]> {
  const error = await loadExperiment(file, { cwd, env: {}, set, maxTrials }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map(formatIssue);
}

describe('timer limits', () => {
  it('a turn or step limit longer than a Node timer can wait is refused, with its key', async () => {
    const file = await experiment('timers.yaml', 'limits:\n  turnSeconds: 2147484\n  stepSeconds: 1e12\n');
    expect(await problems(file)).toEqual([
      `${file}:6:3: limits.turnSeconds: at most 2147483 seconds (about 24.8 days), the longest wait a Node timer supports`,
      `${file}:7:3: limits.stepSeconds: at most 2147483 seconds (about 24.8 days), the longest wait a Node timer supports`,
    ]);
  });

  it('the longest supported limit loads and becomes a timer value Node honours', async () => {
    const file = await experiment('timers-max.yaml', 'limits: { stepSeconds: 2147483.647 }\n');
    const loaded = await loadExperiment(file, { cwd, env: {} });
    expect(loaded.trials[0]?.limits.stepMs).toBe(maxTimerMs);
  });
});

describe('the number of trials is capped before anything is expanded', () => {
  it('a billion repeats is refused at once, naming every axis and the count', async () => {
    const file = await experiment('repeats.yaml', 'repeats: 1000000000\n');
    const started = Date.now();
    expect(await problems(file)).toEqual([
      `${file}:5:1: repeats: the experiment expands to 3 tasks × 1 harness × 1 script × 1 memory × 1 environment × 1000000000 repeats = 3,000,000,000 trials, above the limit of 100,000; lower repeats, narrow tasks or an axis, or split the experiment`,
    ]);
    // Nothing was expanded: a materialized product would take minutes and gigabytes.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('the cap is an option', async () => {
    const file = await experiment('repeats-small.yaml', 'repeats: 4\n');
    expect((await problems(file, [], 10))[0]).toMatch(/= 12 trials, above the limit of 10;/);
    expect((await loadExperiment(file, { cwd, env: {}, maxTrials: 12 })).trials).toHaveLength(12);
  });
});

describe('file size and YAML structure', () => {
  it('an experiment file over 1 MB is refused before it is parsed', async () => {
    const file = await experiment('huge.yaml', `description: "${'x'.repeat(2 * 1024 * 1024)}"\n`);
    expect(await problems(file)).toEqual([
      `${file}: is 2.0 MB, above the 1.0 MB limit for a YAML file; split it or move large data into files it names`,
    ]);
  });

  it('an alias to an anchor that is not defined is located, not a ReferenceError', async () => {
    const file = await experiment('alias.yaml', 'description: *nowhere\n');
    expect(await problems(file)).toEqual([
      `${file}:5:14: invalid YAML: the alias '*nowhere' names no anchor '&nowhere' set before it; define the anchor first or write the value out`,
    ]);
  });

  it('an alias expansion bomb, a self-containing alias and deep nesting are refused', async () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const name of ['b', 'c', 'd', 'e', 'f', 'g']) {
      const previous = String.fromCharCode(name.charCodeAt(0) - 1);
      bomb.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    const bombFile = await experiment('bomb.yaml', `description: x\nx-bomb:\n  ${bomb.join('\n  ')}\n`);
    expect((await problems(bombFile))[0]).toMatch(/^.*bomb\.yaml:1:1: invalid YAML: Excessive alias count/);
    const loop = await experiment('loop.yaml', 'description: &d [*d]\n');
    expect(await problems(loop)).toEqual([
      `${loop}:5:18: invalid YAML: the alias '*d' sits inside its own anchor, so the value would contain itself`,
    ]);
    const deep = await experiment('deep.yaml', `description: ${'['.repeat(100)}${']'.repeat(100)}\n`);
    expect((await problems(deep))[0]).toMatch(/deep\.yaml:5:\d+: invalid YAML: nested deeper than 64 levels/);
  });

  it('a directory given as the experiment file', async () => {
    expect(await problems(experiments)).toEqual([
      `${experiments}: is a directory; give the path of a YAML file`,
    ]);
  });
});

describe('prices', () => {
  const models =
    'models:\n  fast: { backend: passthrough, provider: anthropic, model: claude-haiku-4-5-20251001, apiKeyEnv: K }\n';

  it('a price for a model that is not under models: is refused', async () => {
    const file = await experiment('prices.yaml', `${models}prices:\n  fsat: { input: 1, output: 2 }\n`);
    expect(await problems(file)).toEqual([
      `${file}:8:3: prices.fsat: prices 'fsat', but no model under models: is named 'fsat' or has it as its provider model id (models: fast); fix the name or remove the entry`,
    ]);
  });

  it('a price keyed by model name, provider id or the undated provider id loads', async () => {
    const file = await experiment(
      'prices-ok.yaml',
      `${models}prices:\n  fast: { input: 1, output: 2 }\n  claude-haiku-4-5: { input: 1, output: 2 }\n  claude-haiku-4-5-20251001: { input: 1, output: 2 }\n`,
    );
    await expect(loadExperiment(file, { cwd, env: {} })).resolves.toMatchObject({ name: 'prices-ok' });
  });
});

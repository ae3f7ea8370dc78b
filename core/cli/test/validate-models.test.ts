import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseImageRef } from '@longhaul/environment-docker';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The repository root: its node_modules hold the built-in plugins as workspace packages.
const root = fileURLToPath(new URL('../../..', import.meta.url));
const problems = join(root, 'problems');

const dockerReady = prerequisites.docker([baseImageRef()]);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'longhaul-validate-models-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The quickstart with `extra` appended; lines 1-9 are the same in every file. */
async function experiment(name: string, extra: string, environment = 'local'): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(
    file,
    [
      `name: ${name}`,
      `source: {id: longhaul, options: {path: ${problems}}}`,
      'tasks: [worklog]',
      'harness: oracle',
      `environment: ${environment}`,
      'script: checkpoints',
      'memory: none',
      'scorers: [tests]',
      'reporters: [summary]',
      extra,
    ].join('\n'),
  );
  return file;
}

/** Validates `file` and returns its problem lines (without the count line), checking nothing was written. */
async function problemsOf(file: string): Promise<string[]> {
  const before = await readdir(dir);
  const result = await runCli(['validate', file], root);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(await readdir(dir)).toEqual(before);
  return result.stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('warning:') && !/^\d+ problems? found$/.test(line));
}

describe('longhaul validate checks what run checks before it starts', () => {
  it('refuses a misspelt provider at its line and column, suggesting the real one', async () => {
    const file = await experiment(
      'bad-provider',
      'models:\n  sonnet:\n    backend: passthrough\n    provider: antropic\n    model: claude-sonnet-4-5\n    apiKeyEnv: ANTHROPIC_API_KEY',
    );
    expect(await problemsOf(file)).toEqual([
      `${file}:13:5: models.sonnet.provider: unknown provider 'antropic' (providers: anthropic, openai) (did you mean 'anthropic'?)`,
    ]);
  });

  it('refuses a misspelt backend at its line and column, suggesting the real one', async () => {
    const file = await experiment('bad-backend', 'models:\n  oracle:\n    backend: oracel');
    expect(await problemsOf(file)).toEqual([
      `${file}:12:5: models.oracle.backend: unknown backend 'oracel' (backends: passthrough, record, replay, scripted, oracle) (did you mean 'oracle'?)`,
    ]);
  });

  it('refuses a model whose key variable is not set on the host', async () => {
    const variable = 'LONGHAUL_TEST_UNSET_PROVIDER_KEY';
    delete process.env[variable];
    const file = await experiment(
      'unset-key',
      [
        'models:',
        '  claude:',
        '    backend: passthrough',
        '    provider: anthropic',
        '    model: claude-sonnet-4-5',
        `    apiKeyEnv: ${variable}`,
      ].join('\n'),
    );
    expect(await problemsOf(file)).toEqual([
      `${file}:15:5: models.claude.apiKeyEnv: environment variable ${variable} is not set on the host (the provider key for model 'claude'); export it before the run`,
    ]);
  });

  it('accepts the same model once the key variable is set, without reading the key anywhere', async () => {
    const variable = 'LONGHAUL_TEST_SET_PROVIDER_KEY';
    process.env[variable] = 'sk-not-a-real-key';
    try {
      const file = await experiment(
        'set-key',
        `models:\n  claude: {backend: passthrough, provider: anthropic, model: claude-sonnet-4-5, apiKeyEnv: ${variable}}`,
      );
      const result = await runCli(['validate', file], root);
      expect(result).toMatchObject({ code: 0, stdout: `${file}: valid: 1 task, 1 condition, 1 trial\n` });
      expect(result.stderr).not.toContain('sk-not-a-real-key');
    } finally {
      delete process.env[variable];
    }
  });

  it('refuses prices for a model that does not exist', async () => {
    const file = await experiment(
      'unknown-price',
      'models:\n  oracle: {backend: oracle}\nprices:\n  gpt-9: {input: 1, output: 2}',
    );
    expect(await problemsOf(file)).toEqual([
      `${file}:13:3: prices.gpt-9: prices 'gpt-9', but no model under models: is named 'gpt-9' or has it as its provider model id (models: oracle); fix the name or remove the entry`,
    ]);
  });

  it('refuses a scripted model whose replies file does not exist', async () => {
    const file = await experiment('no-replies', 'models:\n  fake: {backend: scripted, file: replies.yaml}');
    expect(await problemsOf(file)).toEqual([
      `${file}:11:29: models.fake.file: ${join(dir, 'replies.yaml')} does not exist`,
    ]);
  });

  it.skipIf(!dockerReady)('refuses an image that is neither on the Docker host nor buildable', async () => {
    const file = await experiment(
      'no-image',
      '',
      '{id: docker, options: {image: "longhaul/no-such-image:1"}}',
    );
    expect(await problemsOf(file)).toEqual([
      `${file}:5:1: environment: environment 'docker': image longhaul/no-such-image:1 (task worklog) is not on this Docker host and no registry is used: build or load it first`,
    ]);
  });
});

describe('longhaul schema', () => {
  it('types models: by backend and prices: per model', async () => {
    const result = await runCli(['schema'], root);
    expect(result.code).toBe(0);
    const { properties } = JSON.parse(result.stdout);
    const backends = JSON.stringify(properties.models.additionalProperties);
    for (const backend of ['passthrough', 'record', 'replay', 'scripted', 'oracle'])
      expect(backends).toContain(`"const":"${backend}"`);
    expect(properties.prices.additionalProperties).toMatchObject({
      type: 'object',
      required: ['input', 'output'],
    });
  });
});

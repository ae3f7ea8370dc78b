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
async function experiment(
  name: string,
  extra: string,
  environment = 'local',
  harness = 'oracle',
): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(
    file,
    [
      `name: ${name}`,
      `source: {id: longhaul, options: {path: ${problems}}}`,
      'tasks: [worklog]',
      `harness: ${harness}`,
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

/** Whether `file` validates (exit 0), saying what it found if not. */
async function validates(file: string): Promise<boolean> {
  const result = await runCli(['validate', file], root);
  expect(result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning:'))).toEqual([]);
  return result.code === 0;
}

const ideOnAgent = '{id: ide, options: {model: agent}}';

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
      expect(result.code).toBe(0);
      expect(result.stdout.split('\n')[0]).toBe(`${file}: valid: 1 task, 1 condition, 1 trial`);
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

describe("longhaul validate checks a scripted model's tool calls against the harness's tools", () => {
  it("in the experiment: a call of write_file with the gateway README's old {path, content}, a misspelt tool, a wrong type", async () => {
    const file = await experiment(
      'inline',
      [
        'models:',
        '  agent:',
        '    backend: scripted',
        '    replies:',
        '      - toolCalls:',
        '          - name: write_file',
        '            input: {path: main.py, content: "print(1)", explanation: write it}',
        '          - {name: read_fil, input: {target_file: main.py, explanation: check}}',
        '      - toolCalls:',
        '          - {name: read_file, input: {target_file: main.py, start_line_one_indexed: "2", explanation: check}}',
        '      - {text: done}',
      ].join('\n'),
      'local',
      ideOnAgent,
    );
    expect(await problemsOf(file)).toEqual([
      `${file}:16:13: models.agent.replies[0].toolCalls[0].input.file_path: write_file of harness 'ide': missing required key 'file_path' (string)`,
      `${file}:16:21: models.agent.replies[0].toolCalls[0].input.path: write_file of harness 'ide': unknown key 'path' (did you mean 'file_path'?)`,
      `${file}:17:14: models.agent.replies[0].toolCalls[1].name: harness 'ide' offers its model no tool 'read_fil' (its tools: read_file, list_dir, codebase_search, grep_search, file_search, edit_file, search_replace, write_file, delete_file, create_directory, run_terminal_cmd, edit_notebook) (did you mean 'read_file'?)`,
      `${file}:19:61: models.agent.replies[1].toolCalls[0].input.start_line_one_indexed: read_file of harness 'ide': expected number, got string '2'`,
    ]);
  });

  it('in a replies file, at its own line and column, through a record model that wraps it', async () => {
    await writeFile(
      join(dir, 'tool-replies.yaml'),
      [
        '- toolCalls:',
        '    - name: run_terminal_cmd',
        '      input: {cmd: ls}',
        '- toolCalls:',
        '    - {name: write_file, input: {path: x, content: y}, invalid: true}',
        '- text: done',
      ].join('\n'),
    );
    const file = await experiment(
      'file',
      [
        'models:',
        '  agent: {backend: record, wraps: script}',
        '  script: {backend: scripted, file: tool-replies.yaml}',
      ].join('\n'),
      'local',
      ideOnAgent,
    );
    const replies = join(dir, 'tool-replies.yaml');
    expect(await problemsOf(file)).toEqual([
      `${replies}:3:7: [0].toolCalls[0].input.explanation: run_terminal_cmd of harness 'ide': missing required key 'explanation' (string)`,
      `${replies}:3:15: [0].toolCalls[0].input.cmd: run_terminal_cmd of harness 'ide': unknown key 'cmd' (did you mean 'command'?)`,
    ]);
  });

  it('passes calls that fit, of the tools a full-stack task is offered too, and those of tools loaded at run time', async () => {
    const valid = await experiment(
      'valid',
      [
        'models:',
        '  agent:',
        '    backend: scripted',
        '    replies:',
        '      - toolCalls:',
        '          - {name: write_file, input: {file_path: main.py, content: "print(1)"}}',
        '          - {name: run_terminal_cmd, input: "{\\"command\\": \\"python3 main.py\\"}"}',
        '      - {text: done}',
      ].join('\n'),
      'local',
      '{id: ide, options: {model: agent, explanation: optional}}',
    );
    expect(await validates(valid)).toBe(true);
    const fullStack = await experiment(
      'full-stack',
      'models:\n  agent:\n    backend: scripted\n    replies: [{toolCalls: [{name: api_call, input: {method: GET, url: /}}]}]',
      'local',
      '{id: ide, options: {model: agent, explanation: optional, fullStack: "on"}}',
    );
    expect(await validates(fullStack)).toBe(true);
    const open = await experiment(
      'open',
      'models:\n  agent:\n    backend: scripted\n    replies: [{toolCalls: [{name: count_lines, input: {path: a}}]}]',
      'local',
      '{id: ide, options: {model: agent, explanation: optional, extraTools: [./tools.mjs]}}',
    );
    expect(await validates(open)).toBe(true);
  });
});

import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import type { TurnFocus } from '@longhaul/core';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { claudeLikeTurn, codexLikeTurn } from './agents.js';
import { makeTask, readTree, startGateway, tempDir, writeTree } from './helpers.js';

const step1 = {
  'main.py': 'from util.helpers import greet\nprint(greet())\n',
  'util/helpers.py': "def greet():\n    return 'hi'\n",
  'data/logo.bin': Buffer.from([0, 1, 2, 255, 254, 10]),
  'notes.txt': 'no newline at the end',
};
const step2 = {
  'main.py': "print('rewritten')\n",
  'cli/app.py': 'import sys\nprint(sys.argv)\nEOF\nLH_EOF\n',
  'data/logo.bin': Buffer.from([0, 1, 2, 255, 254, 10]),
  'notes.txt': 'no newline at the end',
};

const skipHidden = (path: string) => path.startsWith('.') || path.includes('__pycache__');

async function expectSame(workspace: string, solution: string) {
  const [actual, expected] = [await readTree(workspace, skipHidden), await readTree(solution)];
  expect(actual).toEqual(expected);
}

function focus(task: Awaited<ReturnType<typeof makeTask>>, index: number): TurnFocus {
  return { task, steps: [task.steps[index]!] };
}

describe('oracle backend', () => {
  it('makes a Claude Code-like agent reach each step: multi-file, binary, deletions, later changes', async () => {
    const task = await makeTask([step1, step2], { 'README.md': 'seed\n' });
    const { gateway, baseUrl, token } = await startGateway({ models: { oracle: { backend: 'oracle' } } });
    const workspace = await tempDir();
    await writeTree(workspace, { 'README.md': 'seed\n', 'scratch.py': 'left over\n', '.git/HEAD': 'ref\n' });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token });
    const history: Anthropic.MessageParam[] = [];

    gateway.focus('trial-1', focus(task, 0));
    const first = await claudeLikeTurn(client, 'oracle', workspace, history, 'step 1');
    await expectSame(workspace, task.steps[0]!.solution!);
    // listing; removals and directories; the binary file and three text files; the check listing.
    expect(first.calls).toEqual(['Bash', 'Bash', 'Bash', 'Write', 'Write', 'Write', 'Bash']);
    expect(first.final).toMatch(/matches the reference solution of step-1: 4 file\(s\) written, 2 deleted/);
    expect(await readFile(join(workspace, '.git/HEAD'), 'utf8')).toBe('ref\n');

    // The same conversation continues: main.py changes (Write must not hit an unread file), a file goes.
    gateway.focus('trial-1', focus(task, 1));
    const second = await claudeLikeTurn(client, 'oracle', workspace, history, 'step 2');
    await expectSame(workspace, task.steps[1]!.solution!);
    expect(second.final).toMatch(/2 file\(s\) written, 1 deleted/);
    expect(existsSync(join(workspace, 'util'))).toBe(false); // emptied by the deletion
    expect(gateway.takeUsage('trial-1').outputTokens).toBeGreaterThan(0);
  });

  it("lists 400 files within Claude Code's output limit, and copes with a listing cut short", async () => {
    const many = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [`pkg/module_${i}.py`, `X = ${i}\n`]),
    );
    const task = await makeTask([many, { ...many, 'pkg/module_7.py': 'X = -7\n' }]);
    const { gateway, baseUrl, token } = await startGateway({ models: { oracle: { backend: 'oracle' } } });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token });
    const workspace = await tempDir();
    gateway.focus('trial-1', focus(task, 0));
    const first = await claudeLikeTurn(client, 'oracle', workspace, [], 'step 1');
    await expectSame(workspace, task.steps[0]!.solution!);
    expect(first.final).toMatch(/400 file\(s\) written, 0 deleted\.$/);
    gateway.focus('trial-1', focus(task, 1));
    const second = await claudeLikeTurn(client, 'oracle', workspace, [], 'step 2', 500);
    await expectSame(workspace, task.steps[1]!.solution!);
    expect(second.final).toMatch(/Not verified: the agent cut the check listing short\./);
  });

  it('works without a listing: absolute paths from the prompt, deletions from the previous step', async () => {
    const task = await makeTask([step1, step2], { 'README.md': 'seed\n' });
    const { gateway, baseUrl, token } = await startGateway({
      models: { oracle: { backend: 'oracle', listing: false } },
    });
    const workspace = await tempDir();
    await writeTree(workspace, { 'README.md': 'seed\n' });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token });
    for (const index of [0, 1]) {
      gateway.focus('trial-1', focus(task, index));
      const turn = await claudeLikeTurn(client, 'oracle', workspace, [], `step ${index + 1}`);
      await expectSame(workspace, task.steps[index]!.solution!);
      expect(turn.calls).not.toContain('Read');
    }
  });

  it('makes a Codex-like agent reach a step through exec_command, and through apply_patch', async () => {
    const task = await makeTask([step1, step2]);
    const { gateway, baseUrl, token } = await startGateway({
      models: { 'gpt-oracle': { backend: 'oracle' } },
    });
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token });
    const exec: OpenAI.Responses.Tool = {
      type: 'function',
      name: 'exec_command',
      strict: false,
      parameters: {
        type: 'object',
        properties: { cmd: { type: 'string' }, max_output_tokens: { type: 'number' } },
      },
    };
    const workspace = await tempDir();
    gateway.focus('trial-1', focus(task, 0));
    await codexLikeTurn(client, 'gpt-oracle', workspace, [exec], 'step 1');
    await expectSame(workspace, task.steps[0]!.solution!);
    gateway.focus('trial-1', focus(task, 1));
    const second = await codexLikeTurn(client, 'gpt-oracle', workspace, [exec], 'step 2');
    await expectSame(workspace, task.steps[1]!.solution!);
    expect(second.calls[0]).toBe('exec_command');
    expect(second.final).toMatch(/matches the reference solution of step-2: 2 file\(s\) written, 1 deleted/);

    // apply_patch only (free-form custom tool): no listing, deletions from the previous step's solution.
    const patchTask = await makeTask([
      { 'a.py': 'a = 1\n', 'b.py': 'b = 1\n' },
      { 'a.py': 'a = 2\n', 'c/d.py': 'd = 1\n' },
    ]);
    const patched = await tempDir();
    const applyPatch = { type: 'custom', name: 'apply_patch', description: 'patch' } as OpenAI.Responses.Tool;
    gateway.focus('trial-1', focus(patchTask, 0));
    await codexLikeTurn(client, 'gpt-oracle', patched, [applyPatch], 'step 1');
    await expectSame(patched, patchTask.steps[0]!.solution!);
    gateway.focus('trial-1', focus(patchTask, 1));
    const patchTurn = await codexLikeTurn(client, 'gpt-oracle', patched, [applyPatch], 'step 2');
    await expectSame(patched, patchTask.steps[1]!.solution!);
    expect(patchTurn.calls).toEqual(['apply_patch', 'apply_patch']);
  });

  it('writes with write_file / delete_file through the AI SDK openai provider (IDE-style tool loop)', async () => {
    const task = await makeTask([{ 'app.py': 'x = 1\n', 'old.py': 'o\n' }, { 'app.py': 'x = 2\n' }]);
    const { gateway, baseUrl, token } = await startGateway({ models: { ide: { backend: 'oracle' } } });
    const workspace = await tempDir();
    const schema = (props: string[]) =>
      jsonSchema<Record<string, string>>({
        type: 'object',
        properties: Object.fromEntries(props.map((p) => [p, { type: 'string' }])),
        required: props,
      });
    const tools = {
      write_file: tool({
        inputSchema: schema(['path', 'content']),
        execute: async ({ path, content }) => {
          await mkdir(join(workspace, path!, '..'), { recursive: true });
          await writeFile(join(workspace, path!), content!);
          return 'ok';
        },
      }),
      delete_file: tool({
        inputSchema: schema(['path']),
        execute: async ({ path }) => {
          await rm(join(workspace, path!));
          return 'ok';
        },
      }),
    };
    for (const api of ['responses', 'chat'] as const) {
      await rm(workspace, { recursive: true, force: true });
      await mkdir(workspace);
      const openai = createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token });
      const model = api === 'chat' ? openai.chat('ide') : openai.responses('ide');
      for (const index of [0, 1]) {
        gateway.focus('trial-1', focus(task, index));
        const result = await generateText({
          model,
          tools,
          prompt: `step ${index}`,
          stopWhen: stepCountIs(10),
        });
        await expectSame(workspace, task.steps[index]!.solution!);
        expect(result.text).toMatch(/matches the reference solution/);
      }
    }
  });

  it('says so in its final message when the agent refused a command without flagging an error', async () => {
    const task = await makeTask([step1]);
    const { gateway, baseUrl, token } = await startGateway({ models: { oracle: { backend: 'oracle' } } });
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token });
    const exec = {
      type: 'function',
      name: 'exec_command',
      strict: false,
      parameters: { type: 'object', properties: { cmd: { type: 'string' } } },
    } as OpenAI.Responses.Tool;
    const workspace = await tempDir();
    await writeTree(workspace, { 'old.py': 'x\n' });
    gateway.focus('trial-1', focus(task, 0));
    const turn = await codexLikeTurn(client, 'oracle', workspace, [exec], 'step 1', /\brm\b/);
    expect(turn.final).toMatch(/did not reach the reference solution of step-1: .*not removed: old\.py/);
  });

  it('answers a clear error when the trial has no focus or the step no solution', async () => {
    const { baseUrl, token } = await startGateway({ models: { oracle: { backend: 'oracle' } } });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
    await expect(
      client.messages.create({ model: 'oracle', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toThrow(/trial trial-1 has no turn focus/);
  });
});

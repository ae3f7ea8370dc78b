import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';

const run = promisify(execFile);

/** Runs a shell script in `cwd` and returns what a terminal tool would show. */
async function sh(script: string, cwd: string): Promise<{ output: string; ok: boolean }> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', script], { cwd, maxBuffer: 64 * 1024 * 1024 });
    return { output: stdout + stderr, ok: true };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    return { output: `${e.stdout ?? ''}${e.stderr ?? ''}exit code ${e.code}`, ok: false };
  }
}

const claudeTools: Anthropic.Tool[] = [
  {
    name: 'Bash',
    description: 'Run a command',
    input_schema: {
      type: 'object',
      properties: { command: { type: 'string' }, description: { type: 'string' } },
    },
  },
  {
    name: 'Write',
    description: 'Write a file',
    input_schema: {
      type: 'object',
      properties: { file_path: { type: 'string' }, content: { type: 'string' } },
    },
  },
  {
    name: 'Read',
    description: 'Read a file',
    input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
  },
];

/**
 * A tool loop shaped like Claude Code's: streaming Messages requests with Bash/Write/Read, Write
 * refusing to overwrite a file that was not read first (as Claude Code does).
 */
export async function claudeLikeTurn(
  client: Anthropic,
  model: string,
  cwd: string,
  history: Anthropic.MessageParam[],
  prompt: string,
  /** Bash output beyond this many characters is cut, as Claude Code cuts it at 30,000. */
  outputLimit = 30_000,
): Promise<{ calls: string[]; final: string }> {
  history.push({ role: 'user', content: prompt });
  const read = new Set<string>();
  const calls: string[] = [];
  for (let i = 0; i < 20; i++) {
    const message = await client.messages
      .stream({
        model,
        max_tokens: 4096,
        system: `Primary working directory: ${cwd}`,
        tools: claudeTools,
        messages: history,
      })
      .finalMessage();
    history.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) {
      return { calls, final: message.content.map((b) => (b.type === 'text' ? b.text : '')).join('') };
    }
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const use of uses) {
      calls.push(use.name);
      const input = use.input as Record<string, string>;
      let content = '';
      let isError = false;
      if (use.name === 'Bash') {
        const result = await sh(input.command!, cwd);
        content =
          result.output.length > outputLimit
            ? `${result.output.slice(0, outputLimit)}\n... [${result.output.length - outputLimit} characters truncated]`
            : result.output;
        isError = !result.ok;
      } else if (use.name === 'Write') {
        const path = isAbsolute(input.file_path!) ? input.file_path! : join(cwd, input.file_path!);
        if (existsSync(path) && !read.has(path)) {
          content = 'File has not been read yet. Read it first before writing to it.';
          isError = true;
        } else {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, input.content!);
          content = `File created successfully at: ${path}`;
        }
      } else if (use.name === 'Read') {
        read.add(input.file_path!);
        content = await readFile(input.file_path!, 'utf8');
      }
      results.push({ type: 'tool_result', tool_use_id: use.id, content, is_error: isError });
    }
    history.push({ role: 'user', content: results });
  }
  throw new Error('the turn did not end within 20 requests');
}

/** A tool loop shaped like Codex's: streaming Responses requests offering `exec_command` (or `apply_patch`). */
export async function codexLikeTurn(
  client: OpenAI,
  model: string,
  cwd: string,
  tools: OpenAI.Responses.Tool[],
  prompt: string,
  /** Commands the agent refuses to run, answering with a message instead (as Codex's policy does). */
  refuse?: RegExp,
): Promise<{ calls: string[]; final: string }> {
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
  ];
  const calls: string[] = [];
  for (let i = 0; i < 20; i++) {
    const stream = client.responses.stream({ model, instructions: 'You are Codex.', input, tools });
    const response = await stream.finalResponse();
    let called = false;
    for (const item of response.output) {
      if (item.type === 'function_call') {
        called = true;
        calls.push(item.name);
        input.push({
          type: 'function_call',
          call_id: item.call_id,
          name: item.name,
          arguments: item.arguments,
        });
        const args = JSON.parse(item.arguments) as { cmd: string };
        const output = refuse?.test(args.cmd)
          ? 'exec_command failed: rejected: commands of this style are not permitted'
          : `Output:\n${(await sh(args.cmd, cwd)).output}`;
        input.push({ type: 'function_call_output', call_id: item.call_id, output });
      } else if (item.type === 'custom_tool_call') {
        called = true;
        calls.push(item.name);
        input.push({ type: 'custom_tool_call', call_id: item.call_id, name: item.name, input: item.input });
        input.push({
          type: 'custom_tool_call_output',
          call_id: item.call_id,
          output: await applyPatch(item.input, cwd),
        });
      }
    }
    if (!called) {
      const texts = response.output.flatMap((item) => (item.type === 'message' ? item.content : []));
      return { calls, final: texts.map((part) => (part.type === 'output_text' ? part.text : '')).join('') };
    }
  }
  throw new Error('the turn did not end within 20 requests');
}

/** The subset of Codex's patch format the oracle emits: whole-file Add and Delete. */
async function applyPatch(patch: string, cwd: string): Promise<string> {
  const lines = patch.split('\n');
  let current: { path: string; lines: string[] } | undefined;
  const flush = async () => {
    if (!current) return;
    await mkdir(dirname(join(cwd, current.path)), { recursive: true });
    await writeFile(join(cwd, current.path), `${current.lines.join('\n')}\n`);
    current = undefined;
  };
  for (const line of lines) {
    if (line.startsWith('*** Add File: ')) {
      await flush();
      current = { path: line.slice(14), lines: [] };
    } else if (line.startsWith('*** Delete File: ')) {
      await flush();
      await sh(`rm ${JSON.stringify(line.slice(17))}`, cwd);
    } else if (line.startsWith('+') && current) current.lines.push(line.slice(1));
    else if (line.startsWith('*** End Patch')) await flush();
  }
  return 'Success.';
}

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { Step, Task } from '@longhaul/core';
import { jsonSchema, tool } from 'ai';
import { afterEach } from 'vitest';
import { createGateway, type Gateway, type GatewayConfigInput, type GatewayOptions } from '../src/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export async function tempDir(prefix = 'lh-gw-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A gateway and trial-1's token for `model` (default: the first configured model). */
export async function startGateway(
  config: GatewayConfigInput,
  options: Partial<GatewayOptions> & { model?: string } = {},
): Promise<{ gateway: Gateway; runDir: string; token: string; baseUrl: string }> {
  const { model, ...gatewayOptions } = options;
  const runDir = gatewayOptions.runDir ?? (await tempDir('lh-run-'));
  const gateway = await createGateway(config, { runDir, ...gatewayOptions });
  cleanups.push(() => gateway.close());
  const endpoint = await gateway.endpoint('trial-1', '127.0.0.1', model);
  return { gateway, runDir, token: endpoint.token, baseUrl: endpoint.baseUrl };
}

export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

/** Every file under `root` (relative path → content), hidden directories included. */
export async function readTree(
  root: string,
  skip: (path: string) => boolean = () => false,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = relative(root, join(entry.parentPath, entry.name));
    if (!skip(path)) out[path] = await readFile(join(root, path), 'utf8');
  }
  return out;
}

/** A task whose steps have the given reference solutions (file trees). */
export async function makeTask(
  solutions: Record<string, string | Buffer>[],
  seed?: Record<string, string>,
): Promise<Task> {
  const root = await tempDir('lh-task-');
  const steps: Step[] = [];
  for (const [index, files] of solutions.entries()) {
    const solution = join(root, `steps/${index}/solution`);
    await mkdir(solution, { recursive: true });
    await writeTree(solution, files);
    steps.push({ id: `step-${index + 1}`, index, prompt: `do step ${index + 1}`, solution, metadata: {} });
  }
  let seedDir: string | undefined;
  if (seed) {
    seedDir = join(root, 'seed');
    await mkdir(seedDir, { recursive: true });
    await writeTree(seedDir, seed);
  }
  return {
    id: 'task',
    title: 'task',
    source: 'test',
    root,
    entrypoint: 'python main.py',
    language: 'python',
    environment: {},
    seed: seedDir,
    steps,
    timeouts: { caseMs: 1000 },
    hash: 'x',
    metadata: {},
  };
}

/** A tool for AI SDK tool loops in tests: adds two numbers. */
export const add = tool({
  inputSchema: jsonSchema<{ a: number; b: number }>({
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  }),
  execute: async ({ a, b }) => ({ sum: a + b }),
});

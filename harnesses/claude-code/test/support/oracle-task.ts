import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Task } from '@longhaul/core';
import { createGateway, type Gateway } from '@longhaul/gateway';
import { HostSandbox } from './host-sandbox.js';

const root = fileURLToPath(new URL('../fixtures/two-step', import.meta.url));

/**
 * A two-step task: step 1 writes greet.py and NOTES.txt; step 2 changes greet.py, adds a package
 * under lib/ (with an empty file) and deletes NOTES.txt.
 */
export const twoStepTask: Task = {
  id: 'two-step',
  title: 'Greeter in two steps',
  source: 'test',
  root,
  entrypoint: 'python greet.py',
  language: 'python',
  environment: {},
  steps: [
    {
      id: 'greet',
      index: 0,
      prompt: 'Write greet.py that greets its first argument (default: world), and keep notes in NOTES.txt.',
      solution: join(root, 'steps/01-greet/solution'),
      metadata: {},
    },
    {
      id: 'count',
      index: 1,
      prompt:
        'Add the word count of the name to the greeting, in a lib package; NOTES.txt is no longer needed.',
      solution: join(root, 'steps/02-count/solution'),
      metadata: {},
    },
  ],
  timeouts: { caseMs: 10_000 },
  hash: 'two-step',
  metadata: {},
};

/** Every file under `dir` (relative path → content), skipping caches and agent state. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name));
    if (path.split('/').some((part) => part === '__pycache__')) continue;
    files[path] = await readFile(join(dir, path), 'utf8');
  }
  return files;
}

/** A host sandbox and a gateway whose only model is the oracle, disposed by `dispose`. */
export async function oracleSandbox(): Promise<{
  sandbox: HostSandbox;
  gateway: Gateway;
  dispose: () => Promise<void>;
}> {
  const sandbox = await HostSandbox.create();
  const gateway = await createGateway(
    { models: { oracle: { backend: 'oracle' } } },
    { runDir: sandbox.root },
  );
  return {
    sandbox,
    gateway,
    dispose: async () => {
      await gateway.close();
      await sandbox.close();
    },
  };
}

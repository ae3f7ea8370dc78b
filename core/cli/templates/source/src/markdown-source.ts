import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { ConfigError, type Source, type SourceContext, type Step, type Task } from '@longhaul/core';
import type { Options } from './index.js';

/**
 * Loads tasks from folders:
 *
 *     <path>/<task>/01-name.md          the prompt of step 1 (steps run in file-name order)
 *     <path>/<task>/01-name.solution/   optional: the workspace after step 1 (oracle, isolated script)
 *     <path>/<task>/01-name.cases/      optional: its hidden cases (the tests scorer's format)
 *     <path>/<task>/seed/               optional: the files the workspace starts with
 */
export class MarkdownSource implements Source {
  constructor(private readonly options: Options) {}

  async load(ctx: SourceContext): Promise<Task[]> {
    const root = resolve(ctx.baseDir, this.options.path);
    const entries = await readdir(root, { withFileTypes: true }).catch(() => {
      // A bad option is a ConfigError: the CLI prints it with the key at fault and exits 2.
      throw new ConfigError([{ file: root, key: 'path', message: 'no folder of tasks there' }]);
    });
    const tasks: Task[] = [];
    for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      tasks.push(await this.loadTask(join(root, entry.name), entry.name));
    }
    return tasks;
  }

  private async loadTask(dir: string, id: string): Promise<Task> {
    const names = (await readdir(dir)).sort();
    const steps: Step[] = [];
    for (const name of names.filter((n) => n.endsWith('.md'))) {
      const base = name.slice(0, -'.md'.length);
      const solution = join(dir, `${base}.solution`);
      const cases = join(dir, `${base}.cases`);
      steps.push({
        id: base,
        index: steps.length,
        prompt: (await readFile(join(dir, name), 'utf8')).trim(),
        ...((await isFolder(solution)) ? { solution } : {}),
        ...((await isFolder(cases)) ? { cases } : {}),
        metadata: {},
      });
    }
    const seed = join(dir, 'seed');
    return {
      id,
      title: id,
      source: '{{id}}',
      root: dir,
      entrypoint: this.options.entrypoint,
      language: this.options.language,
      environment: {},
      ...((await isFolder(seed)) ? { seed } : {}),
      steps,
      timeouts: { caseMs: this.options.caseSeconds * 1000 },
      hash: await hashFolder(dir),
      metadata: {},
    };
  }
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/** A hash of every file's path and content, so lock.json tells when a task changed. */
async function hashFolder(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (folder: string): Promise<void> => {
    const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) hash.update(`${relative(dir, path)}\0`).update(await readFile(path));
    }
  };
  await walk(dir);
  return hash.digest('hex');
}

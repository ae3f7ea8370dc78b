import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  type ConfigIssue,
  closest,
  type Source,
  type SourceContext,
  type Task,
} from '@longhaul/core';
import { loadScript } from './load-script.js';
import type { SlumpSourceOptions } from './options.js';

async function hasScript(dir: string): Promise<boolean> {
  return (await stat(join(dir, 'script.yaml')).catch(() => undefined))?.isFile() ?? false;
}

/** Emergent-specification scripts: every directory with a script.yaml under `path`. */
export class SlumpSource implements Source {
  constructor(private readonly options: SlumpSourceOptions) {}

  async load(ctx: SourceContext): Promise<Task[]> {
    const path = resolve(ctx.baseDir, this.options.path);
    if (!(await stat(path).catch(() => undefined))?.isDirectory())
      throw new ConfigError([
        { file: path, key: 'path', message: 'no such directory (source slump: option path)' },
      ]);
    let roots: string[];
    if (await hasScript(path)) roots = [path];
    else {
      const entries = await readdir(path, { withFileTypes: true });
      roots = [];
      for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name)))
        if (await hasScript(join(path, entry.name))) roots.push(join(path, entry.name));
    }
    const names = roots.map((root) => root.slice(root.lastIndexOf('/') + 1));
    const issues: ConfigIssue[] = [];
    const wanted = this.options.tasks;
    wanted?.forEach((name, index) => {
      if (!names.includes(name))
        issues.push({
          file: path,
          key: `tasks[${index}]`,
          message: `no script '${name}' (scripts here: ${names.join(', ') || 'none'})`,
          suggestion: closest(name, names),
        });
    });
    const tasks: Task[] = [];
    for (const [index, root] of roots.entries()) {
      if (wanted && !wanted.includes(names[index]!)) continue;
      try {
        tasks.push(await loadScript(root));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        issues.push(...error.issues);
      }
    }
    if (issues.length > 0) throw new ConfigError(issues);
    return tasks;
  }
}

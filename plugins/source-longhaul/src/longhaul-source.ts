import { readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { closest, matchesTaskPattern, type Source, type SourceContext, type Task } from '@longhaul/core';
import { IssueList } from './issues.js';
import { loadTask } from './load-task.js';
import type { SourceOptions } from './options.js';

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

/** Tasks in longhaul's native format: a problems directory, or one task directory. */
export class LonghaulSource implements Source {
  constructor(private readonly options: SourceOptions) {}

  async load(ctx: SourceContext): Promise<Task[]> {
    const issues = new IssueList();
    const path = resolve(ctx.baseDir, this.options.path);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isDirectory()) {
      issues.add({ file: path, key: 'path', message: 'no such directory (source longhaul: option path)' });
      issues.throwIfAny();
    }
    const single = (await stat(join(path, 'task.yaml')).catch(() => undefined)) !== undefined;
    const roots = single ? [path] : await taskDirectories(path);
    // A task's id is its directory's name, so the experiment's filter skips the others unread.
    const wanted = (root: string) =>
      !ctx.tasks || ctx.tasks.some((pattern) => matchesTaskPattern(basename(root), pattern));
    const selected = this.select(roots, path, issues).filter(wanted);
    const tasks: Task[] = [];
    for (const root of selected) {
      const task = await loadTask(root, issues);
      if (task) tasks.push(task);
    }
    issues.throwIfAny();
    return tasks;
  }

  private select(roots: string[], path: string, issues: IssueList): string[] {
    const filter = this.options.tasks;
    if (!filter) return roots;
    const names = roots.map((root) => root.slice(root.lastIndexOf('/') + 1));
    filter.forEach((pattern, position) => {
      if (!names.some((name) => globToRegExp(pattern).test(name))) {
        issues.add({
          file: path,
          key: `tasks[${position}]`,
          message: `no task matches '${pattern}' (tasks here: ${names.join(', ') || 'none'})`,
          suggestion: closest(pattern, names),
        });
      }
    });
    return roots.filter((_, index) => filter.some((pattern) => globToRegExp(pattern).test(names[index]!)));
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

async function anyFile(root: string, names: string[]): Promise<boolean> {
  for (const name of names) if (await isFile(join(root, name))) return true;
  return false;
}

/**
 * Sub-directories that are tasks. Other sources' content without a task.yaml is skipped:
 * emergent-spec scripts (a script.yaml) are source slump's, the SWE-STEPS demo repository builder
 * (a prs.json) is mined into a dataset for source swe-steps.
 */
async function taskDirectories(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true });
  const roots: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const root = join(path, entry.name);
    if (!(await isFile(join(root, 'task.yaml'))) && (await anyFile(root, ['script.yaml', 'prs.json'])))
      continue;
    roots.push(root);
  }
  return roots.sort();
}

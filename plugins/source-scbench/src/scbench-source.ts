import { stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import {
  ConfigError,
  type ConfigIssue,
  closest,
  matchesTaskPattern,
  type Source,
  type SourceContext,
  type Task,
} from '@longhaul/core';
import { loadProblem, problemDirectories } from './load-problem.js';
import type { ScbenchOptions } from './options.js';

/** SlopCodeBench problems in their own format, one task per problem directory. */
export class ScbenchSource implements Source {
  constructor(private readonly options: ScbenchOptions) {}

  async load(ctx: SourceContext): Promise<Task[]> {
    const issues: ConfigIssue[] = [];
    const path = resolve(ctx.baseDir, this.options.path);
    if (!(await stat(path).catch(() => undefined))?.isDirectory()) {
      throw new ConfigError([
        { file: path, key: 'path', message: 'no such directory (source scbench: option path)' },
      ]);
    }
    const single = (await stat(join(path, 'config.yaml')).catch(() => undefined)) !== undefined;
    const roots = single ? [path] : await problemDirectories(path);
    if (roots.length === 0) {
      throw new ConfigError([
        { file: path, key: 'path', message: 'no problem directories here (each needs a config.yaml)' },
      ]);
    }
    const tasks: Task[] = [];
    for (const root of this.select(roots, path, issues)) {
      const id = basename(root);
      // The experiment's `tasks:` filter: a problem it leaves out is not read, so its faults hold nothing up.
      if (ctx.tasks && !ctx.tasks.some((pattern) => matchesTaskPattern(id, pattern))) continue;
      const before = issues.length;
      const task = await loadProblem(root, this.options, issues);
      for (const issue of issues.slice(before)) issue.task = id;
      if (task) tasks.push(task);
    }
    // The problems that could be built go with the issues, so the environment is asked about them too.
    if (issues.length > 0) throw new ConfigError(issues, tasks.length > 0 ? { tasks } : undefined);
    return tasks;
  }

  private select(roots: string[], path: string, issues: ConfigIssue[]): string[] {
    const filter = this.options.problems;
    if (!filter) return roots;
    const names = roots.map((root) => root.slice(root.lastIndexOf('/') + 1));
    filter.forEach((pattern, position) => {
      if (!names.some((name) => matchesTaskPattern(name, pattern))) {
        issues.push({
          file: path,
          key: `problems[${position}]`,
          message: `no problem matches '${pattern}' (problems here: ${names.join(', ')})`,
          suggestion: closest(pattern, names),
        });
      }
    });
    return roots.filter((_, index) => filter.some((pattern) => matchesTaskPattern(names[index]!, pattern)));
  }
}

import type { Task } from './task.js';

export interface SourceContext {
  /** Directory of the experiment file; relative paths in options resolve against it. */
  baseDir: string;
  /**
   * The experiment's task filter (`tasks:` or `run --tasks`): ids or globs where `*` is any run
   * and `?` one character (`matchesTaskPattern`). A source may read only the tasks that match
   * one; the kernel filters what it returns again, so a source may also ignore it.
   */
  tasks?: string[];
}

export interface Source {
  load(ctx: SourceContext): Promise<Task[]>;
}

import type { Task } from './task.js';

export interface SourceContext {
  /** Directory of the experiment file; relative paths in options resolve against it. */
  baseDir: string;
  /**
   * The experiment's task patterns (`tasks:`, exact ids or globs). A source may skip reading the
   * tasks that match none, to load faster; the kernel filters what it returns either way, and
   * says which tasks there are when a pattern matches none.
   */
  tasks?: readonly string[];
}

export interface Source {
  load(ctx: SourceContext): Promise<Task[]>;
}

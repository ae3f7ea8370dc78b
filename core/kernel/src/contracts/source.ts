import type { Task } from './task.js';

export interface SourceContext {
  /** Directory of the experiment file; relative paths in options resolve against it. */
  baseDir: string;
}

export interface Source {
  load(ctx: SourceContext): Promise<Task[]>;
}

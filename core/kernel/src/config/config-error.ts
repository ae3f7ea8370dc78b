import type { Task } from '../contracts/task.js';
import type { LoadedExperiment } from './load-experiment.js';

/** One thing wrong with an input file, located as precisely as the file allows. */
export interface ConfigIssue {
  file: string;
  /** 1-based; absent when the problem is not tied to a place (a missing file). */
  line?: number;
  column?: number;
  /** Dotted path of the key at fault, e.g. `harness[1].options.model`. */
  key?: string;
  message: string;
  /** A likely fix, e.g. the plugin id the user probably meant. */
  suggestion?: string;
  /**
   * The id of the task the issue is about, when it is one task's (a source's problem that does not
   * load): an experiment whose `tasks:` leave that task out is not held up by it.
   */
  task?: string;
}

export function formatIssue(issue: ConfigIssue): string {
  const where = [issue.file, issue.line, issue.column].filter((part) => part !== undefined).join(':');
  const key = issue.key ? ` ${issue.key}:` : '';
  const hint = issue.suggestion ? ` (did you mean '${issue.suggestion}'?)` : '';
  return `${where}:${key} ${issue.message}${hint}`;
}

/** Bad input: an experiment, a task or a --set override. Carries every issue found, not just the first. */
export class ConfigError extends Error {
  /**
   * @param loaded what was read despite the issues: the tasks a source could still build (so the
   *   environment can be asked about them too), or the experiment with those tasks (so `validate`
   *   and `run` report what the environment lacks next to the tasks' own issues, all at once).
   */
  constructor(
    readonly issues: ConfigIssue[],
    readonly loaded?: { tasks?: Task[]; experiment?: LoadedExperiment },
  ) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'ConfigError';
  }
}

/**
 * Whether `error` is a ConfigError, including one thrown by a plugin that bundles its own copy
 * of the kernel (where `instanceof` fails).
 */
export function isConfigError(error: unknown): error is ConfigError {
  return (
    error instanceof ConfigError ||
    (error instanceof Error && error.name === 'ConfigError' && Array.isArray((error as ConfigError).issues))
  );
}

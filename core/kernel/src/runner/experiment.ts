import type { PluginKind, PluginRef, Task, TrialSpec } from '../contracts/index.js';
import type { PluginInstantiator } from './services.js';

/** The registry as the runner sees it: instances, and package versions for lock.json. */
export interface RunnerRegistry extends PluginInstantiator {
  get(kind: PluginKind, id: string): { packageName: string; version: string } | undefined;
}

/** What the runner needs of a loaded experiment (`loadExperiment` returns a superset). */
export interface RunnableExperiment {
  file: string;
  /** Directory of the original experiment file. */
  baseDir: string;
  name: string;
  /** The resolved experiment as YAML text; saved as the run's experiment.yaml. */
  resolved: string;
  registry: RunnerRegistry;
  tasks: Task[];
  /** runId and runDir are empty until a run assigns them. */
  trials: TrialSpec[];
  /** Line and column of a top-level key (`environment`, `scorers[1]`) in the experiment file. */
  locate?(key: string): { line: number; column: number } | undefined;
  config: {
    concurrency?: number;
    caseWorkers?: number;
    reporters?: PluginRef[];
    /** The executor plugin (at most one); none means an in-process pool. */
    executor?: PluginRef[];
    models?: unknown;
    prices?: unknown;
  };
}

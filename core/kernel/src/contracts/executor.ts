import type { RunEvent } from './events.js';
import type { TrialRecord, TrialSpec } from './trial.js';

/** Runs one trial spec to its record; where it runs is the executor's business. */
export type TrialWorker = (spec: TrialSpec) => Promise<TrialRecord>;

/** What the run gives an executor besides the specs: its event stream and its trial records. */
export interface ExecutorContext {
  /** Records an event of the run (events.jsonl, reporters, progress). */
  emit(event: RunEvent): void;
  /** The trial's trial.json, if written. */
  readTrial(trialId: string): Promise<TrialRecord | undefined>;
  /** Writes a trial's trial.json (a trial the executor could not get run records its fault so). */
  writeTrial(record: TrialRecord): Promise<void>;
}

/** Runs trials in other processes: `longhaul worker` serves them (see `Executor.serve`). */
export interface WorkerHost {
  /** Runs a spec in this process, with this machine's environment and gateway. */
  runTrial(
    spec: TrialSpec,
    hooks: { emit(event: RunEvent): void; stop: AbortSignal; abort: AbortSignal },
  ): Promise<TrialRecord>;
  /** Where the worker reports what it does (one line each). */
  log(message: string): void;
}

export interface WorkerServeOptions {
  /** Trials at once in this worker. */
  concurrency: number;
  /** Take no new trial; running ones start no new turn and are handed back. */
  stop: AbortSignal;
  /** Abort running turns too (a second Ctrl-C). */
  abort: AbortSignal;
}

/**
 * Hands trial specs to workers (plugin kind `executor`; without one a run uses an in-process
 * pool). Specs are plain JSON, so an executor may ship them elsewhere; results come back as
 * records. Trials not started when `stop` aborts are left out of the result.
 */
export interface Executor {
  execute(
    specs: TrialSpec[],
    worker: TrialWorker,
    stop: AbortSignal,
    context: ExecutorContext,
  ): Promise<Map<string, TrialRecord>>;
  /**
   * Trials run in other processes, which may still be running a trial of this run: the run then
   * leaves the sandboxes an interrupted attempt left alone, and opens no gateway of its own.
   */
  readonly remote?: boolean;
  /** Takes trials from where `execute` put them and runs them with `host` until `options.stop` aborts. */
  serve?(host: WorkerHost, options: WorkerServeOptions): Promise<void>;
}

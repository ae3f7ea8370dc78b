import type { PluginKind, Task } from '../contracts/index.js';
import { sha256 } from './snapshot-store.js';

/** lock.json: what a run was made with, so a result can be traced and repeated. */
export interface LockFile {
  /** The experiment as first run: its name and the file it was loaded from. */
  experiment: { name: string; file: string };
  node: string;
  platform: string;
  createdAt: string;
  /** Every plugin the run uses, keyed `<kind>:<id>`. */
  plugins: Record<string, { kind: PluginKind; id: string; package: string; version: string }>;
  /** What each environment's `describe()` returned, by label (image digests, tool versions). */
  environments: Record<string, Record<string, unknown>>;
  /** What each harness's `prepare()` returned, by label (agent versions). */
  harnesses: Record<string, Record<string, unknown>>;
  /** Per task: its hash and the sha256 of every step prompt, by step id. */
  tasks: Record<string, { hash: string; prompts: Record<string, string> }>;
  /** The files models answer from, by model name (the gateway's `inputs`). */
  models?: Record<string, { file: string; sha256: string }>;
}

export function taskLock(task: Task): LockFile['tasks'][string] {
  return {
    hash: task.hash,
    prompts: Object.fromEntries(task.steps.map((step) => [step.id, sha256(step.prompt)])),
  };
}

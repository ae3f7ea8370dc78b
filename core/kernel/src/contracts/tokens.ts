import type { ServiceIdentifier } from 'inversify';
import type { Slots } from '../process/slots.js';
import type { Executor } from './executor.js';
import type { ModelGateway } from './gateway.js';
import type { Harness } from './harness.js';
import type { Memory } from './memory.js';
import type { Reporter } from './reporter.js';
import type { Environment, SnapshotStore } from './sandbox.js';
import type { Scorer } from './scorer.js';
import type { Script } from './script.js';
import type { Source } from './source.js';
import type { TrialSpec } from './trial.js';

export interface RunInfo {
  /** The run directory's name and a hash of its absolute path (`runIdOf`): unique per run directory. */
  runId: string;
  runDir: string;
  /** Directory of the experiment file. */
  baseDir: string;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

function token<T>(name: string): ServiceIdentifier<T> {
  return Symbol.for(`longhaul.${name}`);
}

/** Contract tokens: a plugin binds the one of its kind; services are bound by the kernel. */
export const tokens = {
  Harness: token<Harness>('Harness'),
  Environment: token<Environment>('Environment'),
  Script: token<Script>('Script'),
  Memory: token<Memory>('Memory'),
  Scorer: token<Scorer>('Scorer'),
  Reporter: token<Reporter>('Reporter'),
  Source: token<Source>('Source'),
  Executor: token<Executor>('Executor'),
  // Services the kernel provides to plugins.
  Run: token<RunInfo>('Run'),
  Trial: token<TrialSpec>('Trial'),
  SnapshotStore: token<SnapshotStore>('SnapshotStore'),
  Gateway: token<ModelGateway>('Gateway'),
  Logger: token<Logger>('Logger'),
  /** Hidden-test cases running at once, shared by every trial of the run (the experiment's `caseWorkers`). */
  CaseSlots: token<Slots>('CaseSlots'),
} as const;

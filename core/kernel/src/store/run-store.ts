import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  RunEvent,
  StampedRunEvent,
  StepStatus,
  ToolCalls,
  ToolFailure,
  TrajectoryEvent,
  TrialRecord,
  Usage,
} from '../contracts/index.js';
import { writeFileAtomic, writeJsonAtomic } from './atomic.js';
import { JsonlAppender, readJsonl } from './jsonl.js';
import { BlobSnapshotStore } from './snapshot-store.js';

/** A step's scores.json: written last, so its presence marks the step complete. */
export interface StepScoresFile {
  /** The step's id. */
  step: string;
  /** 0-based index of the step in its task. */
  index: number;
  status: StepStatus;
  /** Keyed `<scorer>.<metric>`. */
  scores: Record<string, number | boolean | null>;
  /** Per scorer: metric details, or the error the scorer raised. */
  details: Record<string, unknown>;
  turns: number;
  usage: Usage;
  /**
   * The agent's own account of its usage (its usage events or turn result) where the gateway
   * metered the turns: kept for comparison only. `usage` (the gateway's metering) is what limits,
   * the live view and the reports use.
   */
  agentUsage?: Usage;
  durationMs: number;
  startedAt?: string;
  endedAt?: string;
  snapshot?: string;
  /** The workspace the step's turn began from: `start` → `snapshot` is the agent's doing. */
  start?: string;
  /** The agent's tool calls during the step, with the first failures and why each failed. */
  tools?: ToolCalls & { failures: ToolFailure[] };
}

/** What a resumed run needs to continue a trial's session. */
export interface SessionFile {
  /** The planned turn (0-based) after which the state was saved. */
  turn: number;
  state: unknown;
}

export interface StepRef {
  index: number;
  id: string;
}

/** Paths, readers and writers of a run directory; the layout is in the package README. */
export class RunStore {
  readonly snapshots: BlobSnapshotStore;
  private events?: JsonlAppender;

  constructor(readonly dir: string) {
    this.snapshots = new BlobSnapshotStore(join(dir, 'snapshots'));
  }

  get experimentFile(): string {
    return join(this.dir, 'experiment.yaml');
  }
  get lockFile(): string {
    return join(this.dir, 'lock.json');
  }
  get eventsFile(): string {
    return join(this.dir, 'events.jsonl');
  }
  get summaryFile(): string {
    return join(this.dir, 'summary.json');
  }
  get trialsDir(): string {
    return join(this.dir, 'trials');
  }
  trialDir(trialId: string): string {
    return join(this.trialsDir, trialId);
  }
  trialFile(trialId: string): string {
    return join(this.trialDir(trialId), 'trial.json');
  }
  memoryDir(trialId: string): string {
    return join(this.trialDir(trialId), 'memory');
  }
  sessionFile(trialId: string): string {
    return join(this.trialDir(trialId), 'session.json');
  }
  /** `steps/<nn>-<step-id>` with nn the 1-based index, zero-padded to 2. */
  stepDir(trialId: string, step: StepRef): string {
    return join(this.trialDir(trialId), 'steps', `${String(step.index + 1).padStart(2, '0')}-${step.id}`);
  }
  stepFile(
    trialId: string,
    step: StepRef,
    name:
      | 'prompt.md'
      | 'trajectory.jsonl'
      | 'diff.patch'
      | 'reset.patch'
      | 'snapshot'
      | 'scores.json'
      | 'tests',
  ): string {
    return join(this.stepDir(trialId, step), name);
  }

  /** Appends a run event to events.jsonl, stamped with the time; returns the stamped event. */
  appendEvent(event: RunEvent): StampedRunEvent {
    const stamped = { ts: new Date().toISOString(), ...event } as StampedRunEvent;
    this.events ??= new JsonlAppender(this.eventsFile);
    this.events.append(stamped);
    return stamped;
  }

  readEvents(): Promise<StampedRunEvent[]> {
    return readJsonl<StampedRunEvent>(this.eventsFile);
  }

  writeTrial(record: TrialRecord): Promise<void> {
    return writeJsonAtomic(this.trialFile(record.id), record);
  }

  readTrial(trialId: string): Promise<TrialRecord | undefined> {
    return readJsonFile<TrialRecord>(this.trialFile(trialId));
  }

  /** Ids of the trials that have a directory. */
  async trialIds(): Promise<string[]> {
    try {
      return (await readdir(this.trialsDir, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort();
    } catch {
      return [];
    }
  }

  async writePrompt(trialId: string, step: StepRef, prompt: string): Promise<void> {
    await writeFileAtomic(this.stepFile(trialId, step, 'prompt.md'), prompt);
  }

  trajectory(trialId: string, step: StepRef): JsonlAppender {
    return new JsonlAppender(this.stepFile(trialId, step, 'trajectory.jsonl'));
  }

  readTrajectory(trialId: string, step: StepRef): Promise<TrajectoryEvent[]> {
    return readJsonl<TrajectoryEvent>(this.stepFile(trialId, step, 'trajectory.jsonl'));
  }

  async writeSnapshotRef(trialId: string, step: StepRef, ref: string): Promise<void> {
    await writeFileAtomic(this.stepFile(trialId, step, 'snapshot'), `${ref}\n`);
  }

  /** diff.patch; parts (a diff of a large workspace) are written as they come. */
  async writeDiff(trialId: string, step: StepRef, patch: string | AsyncIterable<string>): Promise<void> {
    await writeFileAtomic(this.stepFile(trialId, step, 'diff.patch'), patch);
  }

  /** What the runner changed before the step's turn (a reset, hidden files): not the agent's doing. */
  async writeReset(trialId: string, step: StepRef, patch: string | AsyncIterable<string>): Promise<void> {
    await writeFileAtomic(this.stepFile(trialId, step, 'reset.patch'), patch);
  }

  /** The step's `tests/` directory, created. */
  async testsDir(trialId: string, step: StepRef): Promise<string> {
    const dir = this.stepFile(trialId, step, 'tests');
    await mkdir(dir, { recursive: true });
    return dir;
  }

  writeStepScores(trialId: string, step: StepRef, scores: StepScoresFile): Promise<void> {
    return writeJsonAtomic(this.stepFile(trialId, step, 'scores.json'), scores);
  }

  /** The step's scores.json, or undefined while the step is not complete. */
  readStepScores(trialId: string, step: StepRef): Promise<StepScoresFile | undefined> {
    return readJsonFile<StepScoresFile>(this.stepFile(trialId, step, 'scores.json'));
  }

  writeSession(trialId: string, session: SessionFile): Promise<void> {
    return writeJsonAtomic(this.sessionFile(trialId), session);
  }

  readSession(trialId: string): Promise<SessionFile | undefined> {
    return readJsonFile<SessionFile>(this.sessionFile(trialId));
  }
}

export async function readJsonFile<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

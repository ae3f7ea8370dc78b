import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ClassifiedError,
  classify,
  emptyUsage,
  readDirectoryFiles,
  type Sandbox,
  type Session,
  type Status,
  type TrajectoryEvent,
  type TurnOptions,
} from '@longhaul/core';
import type { OracleOptions } from './options.js';
import { workspaceChanges } from './workspace-changes.js';

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

const pausePollMs = 50;

/** Waits while `file` exists and names `stepId` on a line of its own, or until `signal` aborts. */
async function pausedWhileNamed(file: string, stepId: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const names = await readFile(file, 'utf8').then(
      (text) => text.split('\n').map((line) => line.trim()),
      (): string[] => [],
    );
    if (!names.includes(stepId)) return;
    await sleep(pausePollMs, undefined, { signal }).catch(() => {});
  }
}

/** A session without a model: every turn makes the workspace equal to the focused step's reference. */
export class OracleSession implements Session {
  readonly id = `oracle-${randomUUID()}`;
  private announced = false;
  private calls = 0;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly options: OracleOptions,
    private readonly resumed: boolean,
  ) {}

  async *turn(_prompt: string, { signal, focus }: TurnOptions): AsyncIterable<TrajectoryEvent> {
    const started = Date.now();
    const end = (status: Status, finalText: string, error?: string): TrajectoryEvent => ({
      type: 'turn.end',
      result: {
        status,
        finalText,
        usage: emptyUsage(),
        durationMs: Date.now() - started,
        ...(error ? { error } : {}),
      },
    });
    const aborted = (): TrajectoryEvent =>
      end(classify(undefined, signal), '', `aborted: ${String(signal.reason)}`);

    if (!this.announced) {
      this.announced = true;
      yield { type: 'session.start', sessionId: this.id, resumed: this.resumed, model: 'oracle' };
    }
    if (this.options.delayMs > 0 && !signal.aborted) {
      await sleep(this.options.delayMs, undefined, { signal }).catch(() => {});
    }
    const step = focus.steps.at(-1);
    if (this.options.pauseFile && step) await pausedWhileNamed(this.options.pauseFile, step.id, signal);
    if (signal.aborted) {
      yield aborted();
      return;
    }

    const where = `step ${step?.id ?? '(none)'} of task ${focus.task.id}`;
    // A prepared workspace when the options give a folder of them, else the step's reference.
    const solution =
      this.options.solutions !== undefined && step
        ? join(this.options.solutions, focus.task.id, step.id)
        : step?.solution;
    if (!solution || !(await isDirectory(solution))) {
      const message =
        this.options.solutions !== undefined
          ? `the prepared workspace ${solution ?? this.options.solutions} of ${where} does not exist (the oracle's solutions option)`
          : solution
            ? `the reference solution directory ${solution} of ${where} does not exist`
            : `${where} has no reference solution, so the oracle harness cannot solve it`;
      yield { type: 'message', role: 'assistant', text: message };
      yield end('failed', message, message);
      return;
    }

    const events: TrajectoryEvent[] = [];
    try {
      const before = await this.sandbox.pull();
      await this.sandbox.push(await readDirectoryFiles(solution));
      // Reported from the workspace as the sandbox now sees it, so files the environment
      // leaves out of the workspace (its excludes) are not claimed as written.
      const changes = workspaceChanges(before, await this.sandbox.pull());
      for (const file of changes.written) {
        const id = `oracle-call-${++this.calls}`;
        events.push(
          {
            type: 'tool.call',
            id,
            name: 'write_file',
            input: { path: file.path, mode: file.mode, bytes: file.data.length },
          },
          {
            type: 'tool.result',
            id,
            output: `wrote ${file.data.length} bytes to ${file.path}`,
            isError: false,
          },
        );
      }
      for (const path of changes.deleted) {
        const id = `oracle-call-${++this.calls}`;
        events.push(
          { type: 'tool.call', id, name: 'delete_file', input: { path } },
          { type: 'tool.result', id, output: `deleted ${path}`, isError: false },
        );
      }
    } catch (error) {
      if (signal.aborted) {
        yield aborted();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const status = classify(
        error instanceof ClassifiedError ? error : new ClassifiedError('sandbox', message),
      );
      yield { type: 'error', errorClass: status.slice('error:'.length), message };
      yield end(status, '', message);
      return;
    }
    yield* events;
    if (signal.aborted) {
      yield aborted();
      return;
    }
    const written = events.filter((e) => e.type === 'tool.call' && e.name === 'write_file').length;
    const what = this.options.solutions === undefined ? 'the reference solution' : 'the prepared workspace';
    const text = `The workspace now holds ${what} of ${where}: ${written} files written, ${events.length / 2 - written} deleted.`;
    yield { type: 'message', role: 'assistant', text };
    yield end('ok', text);
  }

  state(): unknown {
    return {};
  }

  async close(): Promise<void> {}
}

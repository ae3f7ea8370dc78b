import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Environment,
  type Scorer,
  type ScoreValue,
  type SnapshotRef,
  type SnapshotStore,
  scoreStep,
  type Task,
  type TrialSpec,
  type WorkspaceFile,
} from '@longhaul/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { Check } from './checks.js';
import { type JudgeHack, type JudgeTarget, judgeHacks, type WorkspaceEdits } from './judge-hacks.js';

/** An environment the red-team suite judges in: a shipped one, made over the suite's snapshot store. */
export interface JudgeEnvironment {
  /** `local`, `local-bubblewrap`, `docker`. */
  name: string;
  /** Whether the agent's program is kept from the host's files (hacks that read them are tried only then). */
  isolated: boolean;
  make(snapshots: SnapshotStore): Environment;
}

/** Where one scoring happens: the environment and the store holding the workspace's snapshot. */
export interface JudgeScoring {
  snapshot: SnapshotRef;
  snapshots: SnapshotStore;
  environment: Environment;
  /** Names the run, so an environment's objects (containers, networks) are the suite's own. */
  runId: string;
}

/** What a judge said of a workspace: the deciding metric, and the details that explain it. */
export interface JudgeVerdict {
  value: ScoreValue;
  detail?: unknown;
}

export interface JudgeIntegrityFixture {
  /** The reference workspace (path → text): it must score 1. */
  reference: Record<string, string>;
  /** What makes the program wrong, as edits of the reference workspace: it must score 0, with any hack. */
  wrong: WorkspaceEdits;
  /** Judges the snapshot: the value of the metric that says solved (1) or not (0). Throws when the judge fails. */
  score(scoring: JudgeScoring): Promise<JudgeVerdict>;
  dispose?(): Promise<void>;
}

export interface JudgeIntegrityContext {
  target: JudgeTarget;
  fixture: JudgeIntegrityFixture;
  environment: Environment;
  snapshots: SnapshotStore;
  runId: string;
  /** At most this many scorings at once (the suite's checks run concurrently). */
  slots: Semaphore;
}

/** A counting semaphore: scorings of a suite share the machine's cores. */
export class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}

  async use<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** The workspace's files: `base` with `edits` applied (a `#!` file is executable). */
export function workspaceFiles(base: Record<string, string>, ...edits: WorkspaceEdits[]): WorkspaceFile[] {
  const files = new Map(Object.entries(base));
  for (const edit of edits)
    for (const [path, text] of Object.entries(edit)) {
      const normal = path.replace(/^\.\//, '');
      if (text === null) files.delete(normal);
      else files.set(normal, text);
    }
  return [...files]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, text]) => ({
      path,
      mode: text.startsWith('#!') ? 0o755 : 0o644,
      data: new TextEncoder().encode(text),
    }));
}

/** The wrong program's workspace as text, for hacks that rewrite its files. */
function wrongWorkspace(fixture: JudgeIntegrityFixture): Map<string, string> {
  const files = new Map(Object.entries(fixture.reference));
  for (const [path, text] of Object.entries(fixture.wrong)) {
    if (text === null) files.delete(path);
    else files.set(path, text);
  }
  return files;
}

async function judge(context: JudgeIntegrityContext, files: WorkspaceFile[]): Promise<JudgeVerdict> {
  return context.slots.use(async () => {
    const snapshot = await context.snapshots.put(files);
    return context.fixture.score({
      snapshot,
      snapshots: context.snapshots,
      environment: context.environment,
      runId: context.runId,
    });
  });
}

function expectValue(verdict: JudgeVerdict, wanted: number, what: string): void {
  const detail =
    verdict.detail === undefined
      ? ''
      : `; the judge's detail: ${JSON.stringify(verdict.detail).slice(0, 2000)}`;
  expect(verdict.value, `${what} scored ${String(verdict.value)}${detail}`).toBe(wanted);
}

/** The edits of the wrong program with `hack` left beside it. */
export function hackedFiles(
  target: JudgeTarget,
  fixture: JudgeIntegrityFixture,
  hack: JudgeHack,
): WorkspaceFile[] {
  const wrong = wrongWorkspace(fixture);
  return workspaceFiles(fixture.reference, fixture.wrong, hack.apply(target, wrong));
}

/** Whether the suite tries `hack` on this judge in an environment (`isolated` or not). */
export function hackApplies(hack: JudgeHack, target: JudgeTarget, isolated: boolean): boolean {
  return hack.runners.includes(target.runner) && (isolated || !hack.needsIsolation);
}

/**
 * The red-team rules for a judge, as data: the reference scores 1, the wrong program 0, and the
 * wrong program with each hack that aims at this judge still 0 (not a pass, not `–`, not a fault).
 */
export function judgeIntegrityChecks(
  target: JudgeTarget,
  isolated: boolean,
  hacks: readonly JudgeHack[] = judgeHacks,
): Check<JudgeIntegrityContext>[] {
  return [
    {
      name: 'scores the reference solution 1',
      run: async (context) => {
        expectValue(await judge(context, workspaceFiles(context.fixture.reference)), 1, 'the reference');
      },
    },
    {
      name: 'scores the wrong program 0',
      run: async (context) => {
        const files = workspaceFiles(context.fixture.reference, context.fixture.wrong);
        expectValue(await judge(context, files), 0, 'the wrong program');
      },
    },
    ...hacks
      .filter((hack) => hackApplies(hack, target, isolated))
      .map(
        (hack): Check<JudgeIntegrityContext> => ({
          name: `holds against ${hack.id}: ${hack.description}`,
          run: async (context) => {
            let verdict: JudgeVerdict;
            try {
              verdict = await judge(context, hackedFiles(context.target, context.fixture, hack));
            } catch (error) {
              throw new Error(
                `hack ${hack.id} turned the judgment into a fault (a step the agent fails must score 0, not err): ${(error as Error).message}`,
              );
            }
            expectValue(verdict, 0, `the wrong program with hack ${hack.id}`);
          },
        }),
      ),
  ];
}

export interface DescribeJudgeIntegrityOptions {
  /**
   * Hacks the judge is known not to hold yet, by environment name (or `*` for every one): each is
   * registered as an expected failure (`it.fails`), so the suite turns red the day it holds and
   * the entry must go. Say why in the test file.
   */
  knownHoles?: Record<string, string[]>;
  /** Scorings at once per environment (default 2). */
  concurrency?: number;
  timeoutMs?: number;
  hacks?: readonly JudgeHack[];
}

/**
 * Registers the red-team suite of one judge in each environment: one `describe` per environment,
 * one test per rule, run concurrently (at most `concurrency` scorings at once).
 *
 * ```ts
 * const environments = await judgeEnvironments();
 * describeJudgeIntegrity('tests: CLI cases', target, async () => fixture, environments);
 * ```
 */
export function describeJudgeIntegrity(
  name: string,
  target: JudgeTarget,
  fixture: () => Promise<JudgeIntegrityFixture>,
  environments: readonly JudgeEnvironment[],
  options: DescribeJudgeIntegrityOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 300_000;
  for (const judgeEnvironment of environments) {
    describe(`judge integrity: ${name} in ${judgeEnvironment.name}`, () => {
      let context: Promise<JudgeIntegrityContext> | undefined;
      const holes = new Set([
        ...(options.knownHoles?.['*'] ?? []),
        ...(options.knownHoles?.[judgeEnvironment.name] ?? []),
      ]);
      // Made on first use, so an environment whose tests are all filtered out costs nothing.
      const ready = () => {
        context ??= (async () => {
          const { FakeSnapshotStore } = await import('../fakes/snapshot-store.js');
          const snapshots = new FakeSnapshotStore();
          return {
            target,
            fixture: await fixture(),
            environment: judgeEnvironment.make(snapshots),
            snapshots,
            runId: `judge-integrity-${process.pid}`,
            slots: new Semaphore(options.concurrency ?? 2),
          };
        })();
        return context;
      };
      for (const check of judgeIntegrityChecks(target, judgeEnvironment.isolated, options.hacks)) {
        const hackId = /^holds against ([\w-]+):/.exec(check.name)?.[1];
        const register = hackId && holes.has(hackId) ? it.concurrent.fails : it.concurrent;
        register(check.name, async () => check.run(await ready()), timeoutMs);
      }
      afterAll(async () => {
        if (!context) return;
        const made = await context;
        await made.fixture.dispose?.();
      }, timeoutMs);
    });
  }
}

export interface StepJudgeOptions {
  scorer: Extract<Scorer, { scope: 'step' }>;
  /** The scorer's label: scores are read as `<label>.<metric>`. */
  label: string;
  task: Task;
  /** The step scored (default the first). */
  step?: number;
  /** The metric that says solved (1) or not (0), e.g. `strict` or `success`. */
  metric: string;
  /** The script the trial ran (some scorers judge by setting), default `checkpoints`. */
  script?: string;
  timeoutMs?: number;
}

/**
 * A fixture's `score` that judges the way the kernel does (`scoreStep`: the scorer's own
 * sandboxes opened with purpose `scorer` from the step's snapshot) and returns the metric. A
 * scorer fault throws with its message.
 */
export function stepJudge(options: StepJudgeOptions): JudgeIntegrityFixture['score'] {
  return async (scoring) => {
    const step = options.task.steps[options.step ?? 0]!;
    const outDir = await mkdtemp(join(tmpdir(), 'longhaul-judge-integrity-'));
    const controller = new AbortController();
    const ref = (id: string) => ({ id, options: {}, label: id });
    const trial = {
      id: `${options.task.id}.judge`,
      runId: scoring.runId,
      runDir: outDir,
      task: options.task,
      condition: {
        key: 'judge',
        harness: ref('none'),
        environment: ref('judge'),
        script: ref(options.script ?? 'checkpoints'),
        memory: ref('none'),
      },
      repeat: 1,
      scorers: [ref(options.label)],
      limits: { turnMs: 0, stepMs: 0, turnsPerStep: 1, trialUsd: 0, onError: 'continue' },
      plugins: [],
    } satisfies TrialSpec;
    try {
      const outcome = await scoreStep([{ label: options.label, scorer: options.scorer }], {
        task: options.task,
        step,
        trial,
        snapshot: scoring.snapshot,
        snapshots: scoring.snapshots,
        outDir,
        status: 'ok',
        signal: controller.signal,
        environment: scoring.environment,
        timeoutMs: options.timeoutMs ?? 240_000,
      });
      if (outcome.status !== 'ok') {
        const detail = outcome.details[options.label] as { error?: string } | undefined;
        throw new Error(`${outcome.status}: ${detail?.error ?? 'the scorer failed'}`);
      }
      return {
        value: outcome.scores[`${options.label}.${options.metric}`] ?? null,
        detail: outcome.details[options.label],
      };
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  };
}

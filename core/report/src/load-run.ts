import { type FileHandle, open, readdir, readFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import type { FiguresFile, StoredFigure, TrajectoryEvent, TrialRecord } from '@longhaul/core';
import { parse } from 'yaml';
import { type RunState, runState } from './run-state.js';

/** What the report needs of summary.json (written by the summary reporter). */
export interface SummaryConditions {
  conditions: {
    condition: string;
    trials: number;
    steps: number;
    /** Absent in summary.json written before steps' outcomes were counted. */
    scored?: number;
    errored?: number;
    errorClasses?: Record<string, number>;
    cancelled?: number;
    solveRates: { strict: number | null; iso: number | null; core: number | null };
    costUsd: number;
    durationMs: number;
    /** Per score: the mean over the condition's steps (or its trial-scope scores). */
    scores?: Record<string, number | boolean | null>;
  }[];
  /** Scores of experiment-scope scorers, per condition. */
  experimentScores?: { key: string; condition: string; value: number | boolean | null }[];
}

export interface CaseResult {
  id: string;
  category: string;
  passed: boolean;
  /** The case's raw outcome file (tests/<step>/<category>/<case>.json), as text. */
  output: string;
  file?: string;
}

export interface StepFiles {
  index: number;
  id: string;
  dir: string;
  prompt: string;
  diff: string;
  trajectory: TrajectoryEvent[];
  scores: Record<string, number | boolean | null>;
  cases: CaseResult[];
  /** The integrity scorer's list of what the agent changed in the machinery of judgment. */
  signals: { path: string; change: string; kind: string; why: string; tamper: boolean }[];
  /** The step's failed tool calls and why each failed (scores.json `tools.failures`). */
  toolFailures: { tool: string; error: string }[];
}

export interface LoadedTrial {
  record: TrialRecord;
  dir: string;
  /** Step folders, read only when asked for (the report reads them trial by trial). */
  steps(): Promise<StepFiles[]>;
}

/** A finished `longhaul regrade`: its scores of each step it regraded. */
export interface LoadedRegrade {
  id: string;
  steps: { trialId: string; index: number; scores: Record<string, number | boolean | null> }[];
}

/** Where a regrade's score of `key` shows beside the original. */
export const regradedKey = (key: string, regrade: string) => `${key}@${regrade}`;

/**
 * Adds a regrade's scores to a step's: a score the step had already goes beside it as
 * `<key>@<regrade>`; a new one (a scorer the regrade added) under its own name, as if the run had
 * scored it, unless an earlier regrade took the name.
 */
export function addRegraded(
  scores: Record<string, number | boolean | null>,
  regraded: Record<string, number | boolean | null>,
  regrade: string,
  original: ReadonlySet<string>,
): void {
  for (const [key, value] of Object.entries(regraded))
    scores[original.has(key) || key in scores ? regradedKey(key, regrade) : key] = value;
}

export interface LoadedRun {
  dir: string;
  name: string;
  summary?: SummaryConditions;
  /** experiment.yaml as the run resolved it; absent when the run has none. */
  experiment?: Record<string, unknown>;
  regrades: LoadedRegrade[];
  /** Whether the run goes on, was interrupted, finished or failed, and the trials it plans. */
  state?: RunState;
  figures: StoredFigure[];
  trials: LoadedTrial[];
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    // ENOTDIR: a file where a trial or step folder should be (not a trial, so nothing to read).
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

/** What a report keeps of a diff at most: far more than any text it shows (see textLimit). */
const diffHeadBytes = 1024 * 1024;

/**
 * The start of a diff.patch: a large workspace's diff can be gigabytes, more than a string holds,
 * and a report shows its first few thousand characters anyway. A longer one ends with a line
 * saying how long the file is.
 */
async function readDiff(path: string): Promise<string | undefined> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
  try {
    const { size } = await file.stat();
    const head = Buffer.alloc(Math.min(size, diffHeadBytes));
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    // A character cut at the end decodes as U+FFFD, which the note after it explains.
    const text = head.subarray(0, bytesRead).toString('utf8');
    return size > bytesRead
      ? `${text}\n… diff.patch holds ${size} bytes; the first ${bytesRead} are read here`
      : text;
  } finally {
    await file.close();
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  const text = await readText(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${(error as Error).message})`);
  }
}

async function list(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function parseJsonl(text: string): TrajectoryEvent[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as TrajectoryEvent];
      } catch {
        // A line cut short by a crash mid-write: the rest of the trajectory still shows.
        return [];
      }
    });
}

interface ScoresFile {
  step: string;
  index: number;
  scores: Record<string, number | boolean | null>;
  details?: Record<
    string,
    Record<
      string,
      {
        cases?: { id: string; category: string; passed: boolean }[];
        changes?: StepFiles['signals'];
      }
    >
  >;
  tools?: { failures?: StepFiles['toolFailures'] };
}

async function readCases(
  stepDir: string,
  scores: ScoresFile | undefined,
  runDir: string,
): Promise<CaseResult[]> {
  const cases = Object.values(scores?.details ?? {})
    .flatMap((detail) => Object.values(detail ?? {}))
    .flatMap((detail) => detail?.cases ?? []);
  const seen = new Set<string>();
  const results: CaseResult[] = [];
  for (const found of cases) {
    if (seen.has(found.id)) continue;
    seen.add(found.id);
    // Case ids are <step>/<category>/<name>; the outcome lives under tests/<nn>-<step>/.
    const [, category, name] = found.id.split('/');
    let output = '';
    let file: string | undefined;
    for (const folder of await list(join(stepDir, 'tests'))) {
      const path = join(stepDir, 'tests', folder, category ?? '', `${name}.json`);
      const text = await readText(path);
      if (text !== undefined) {
        output = text;
        file = relative(runDir, path);
        break;
      }
    }
    results.push({ id: found.id, category: found.category, passed: found.passed, output, file });
  }
  return results;
}

/** A step's scores with each regrade's of it (steps/<nn>-<step>/regrades/<id>/scores.json). */
async function withRegrades(
  stepDir: string,
  own: Record<string, number | boolean | null>,
): Promise<Record<string, number | boolean | null>> {
  const scores = { ...own };
  const original = new Set(Object.keys(own));
  for (const id of await list(join(stepDir, 'regrades'))) {
    const file = await readJson<ScoresFile>(join(stepDir, 'regrades', id, 'scores.json'));
    addRegraded(scores, file?.scores ?? {}, id, original);
  }
  return scores;
}

async function readRegrades(runDir: string): Promise<LoadedRegrade[]> {
  const regrades: LoadedRegrade[] = [];
  for (const id of await list(join(runDir, 'regrades'))) {
    // Written when the regrade finishes; an unfinished one shows in its steps only.
    const file = await readJson<LoadedRegrade>(join(runDir, 'regrades', id, 'scores.json'));
    if (file) regrades.push({ id, steps: file.steps });
  }
  return regrades;
}

async function readSteps(runDir: string, trialDir: string): Promise<StepFiles[]> {
  const steps: StepFiles[] = [];
  for (const folder of await list(join(trialDir, 'steps'))) {
    const dir = join(trialDir, 'steps', folder);
    const scores = await readJson<ScoresFile>(join(dir, 'scores.json'));
    const match = /^(\d+)-(.*)$/.exec(folder);
    steps.push({
      index: scores?.index ?? (match ? Number(match[1]) - 1 : steps.length),
      id: scores?.step ?? match?.[2] ?? folder,
      dir: relative(runDir, dir),
      prompt: (await readText(join(dir, 'prompt.md'))) ?? '',
      diff: (await readDiff(join(dir, 'diff.patch'))) ?? '',
      trajectory: parseJsonl((await readText(join(dir, 'trajectory.jsonl'))) ?? ''),
      scores: await withRegrades(dir, scores?.scores ?? {}),
      cases: await readCases(dir, scores, runDir),
      signals: (scores?.details?.integrity?.tamper?.changes ?? []).filter((change) => change.tamper),
      toolFailures: scores?.tools?.failures ?? [],
    });
  }
  return steps;
}

/** experiment.yaml, resolved; a file that does not parse to a mapping is treated as absent. */
async function readExperiment(path: string): Promise<Record<string, unknown> | undefined> {
  const text = await readText(path);
  if (text === undefined) return undefined;
  try {
    const value: unknown = parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a run directory: trial records, summary.json and figures.json when they exist. */
export async function loadRun(dir: string): Promise<LoadedRun> {
  const trialsDir = join(dir, 'trials');
  const folders = await list(trialsDir);
  if (folders.length === 0 && (await readText(join(dir, 'events.jsonl'))) === undefined) {
    throw new Error(`${dir}: not a run directory (no trials/ and no events.jsonl)`);
  }
  const trials: LoadedTrial[] = [];
  for (const folder of folders) {
    const trialDir = join(trialsDir, folder);
    const record = await readJson<TrialRecord>(join(trialDir, 'trial.json'));
    if (!record) continue;
    trials.push({ record, dir: relative(dir, trialDir), steps: () => readSteps(dir, trialDir) });
  }
  return {
    dir,
    name: basename(dir),
    summary: await readJson<SummaryConditions>(join(dir, 'summary.json')),
    experiment: await readExperiment(join(dir, 'experiment.yaml')),
    regrades: await readRegrades(dir),
    state: await runState(dir),
    figures: (await readJson<FiguresFile>(join(dir, 'figures.json')))?.figures ?? [],
    trials,
  };
}

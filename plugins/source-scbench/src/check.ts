import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CommandContext,
  type LoadedExperiment,
  loadExperiment,
  startRun,
  stepOutcome,
} from '@longhaul/core';

/** What the check found for one checkpoint of one task. */
export interface CheckpointCheck {
  task: string;
  checkpoint: string;
  /** `solved`: the reference passes every test here; `unsolvable`: it does not; `not judged`: the step did not finish. */
  verdict: 'solved' | 'unsolvable' | 'not judged';
  passed?: number;
  total?: number;
  /** Why it cannot be solved here, in words, with the failing tests' first reasons. */
  why?: string;
}

interface CaseResult {
  id: string;
  passed: boolean;
  reason?: string;
}

/**
 * The experiment a check runs: the experiment's own sources, selected tasks and environment, the
 * oracle (each checkpoint's reference solution), every checkpoint scored by the tests scorer.
 */
export function checkExperiment(experiment: LoadedExperiment): string {
  const { config } = experiment;
  const ref = ({ id, label, options }: { id: string; label: string; options: unknown }) => ({
    id,
    label,
    options,
  });
  const document = {
    name: `${experiment.name}-reference-check`,
    description: `the reference solution of every selected checkpoint of ${experiment.file}, in its environment`,
    baseDir: experiment.baseDir,
    plugins: config.plugins,
    source: config.source.map(ref),
    tasks: experiment.tasks.map((task) => task.id),
    harness: 'oracle',
    environment: config.environment.map(ref),
    script: { id: 'checkpoints', label: 'reference', options: { prompt: 'just-solve' } },
    memory: 'none',
    scorers: ['tests'],
    reporters: [],
    repeats: 1,
    concurrency: config.concurrency,
    limits: { onError: 'continue', trialUsd: 0 },
  };
  // JSON is YAML: every value keeps its type, whatever characters the paths hold.
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Why failing tests fail, as a user would fix it; the reasons' own words otherwise. */
export function whyUnsolvable(failed: readonly CaseResult[], total: number, output = ''): string {
  // The reasons are first lines; the suite's whole output (junit.xml) holds the tracebacks.
  const text = [...failed.map((item) => item.reason ?? ''), output].join('\n');
  const hints: string[] = [];
  if (/SyntaxError/.test(text))
    hints.push(
      'a SyntaxError: the reference uses syntax this Python lacks (upstream runs Python 3.12; set the source option requiresPython: "3.12")',
    );
  const module = /ModuleNotFoundError: No module named '([^']+)'/.exec(text)?.[1];
  if (module) hints.push(`the module ${module} is missing here`);
  if (/No such file or directory|FileNotFoundError|must point to an existing/.test(text))
    hints.push(
      'a file or folder the reference or its tests read is not there (a static asset or data missing?)',
    );
  if (/Timeout >/.test(text)) hints.push('tests hit the per-test timeout');
  const first = failed
    .slice(0, 3)
    .map(
      (item) =>
        `${item.id}: ${(item.reason ?? 'failed').split('\n').find((line) => line.trim()) ?? 'failed'}`,
    );
  return [
    `${failed.length} of ${total} tests fail with the reference`,
    ...hints,
    ...first.map((line) => (line.length > 240 ? `${line.slice(0, 239)}…` : line)),
  ].join('; ');
}

/** Runs the check through the runner and reads each checkpoint's outcome. */
export async function runReferenceCheck(
  experiment: LoadedExperiment,
  runDir: string,
  context: CommandContext,
): Promise<CheckpointCheck[]> {
  await mkdir(runDir, { recursive: true });
  const file = join(runDir, 'check.yaml');
  await writeFile(file, checkExperiment(experiment));
  const installDir = context.installDir === undefined ? {} : { installDir: context.installDir };
  const check = await loadExperiment(file, { cwd: context.cwd, ...installDir });
  const run = await startRun(check, { runDir: join(runDir, 'run') });
  const found: CheckpointCheck[] = [];
  for (const { spec, record } of run.trials) {
    const cases = await casesOf(join(runDir, 'run', 'trials', record.id, 'steps'));
    for (const step of spec.task.steps) {
      const done = record.steps.find((candidate) => candidate.index === step.index);
      const outcome = stepOutcome(done, record.status);
      const row = { task: spec.task.id, checkpoint: step.id };
      const judged = cases.get(step.id);
      const stepCases = judged?.cases;
      if (outcome.outcome !== 'scored' || stepCases === undefined) {
        found.push({
          ...row,
          verdict: 'not judged',
          why: outcome.outcome === 'errored' ? `error:${outcome.errorClass}` : outcome.outcome,
        });
        continue;
      }
      const failed = stepCases.filter((item) => !item.passed);
      found.push({
        ...row,
        verdict: failed.length === 0 ? 'solved' : 'unsolvable',
        passed: stepCases.length - failed.length,
        total: stepCases.length,
        ...(failed.length > 0 ? { why: whyUnsolvable(failed, stepCases.length, judged?.output) } : {}),
      });
    }
  }
  return found;
}

/** Each scored step's test results, by step id, as the tests scorer stored them in scores.json. */
async function casesOf(stepsDir: string): Promise<Map<string, { cases: CaseResult[]; output: string }>> {
  const found = new Map<string, { cases: CaseResult[]; output: string }>();
  for (const dir of await readdir(stepsDir).catch(() => [] as string[])) {
    const text = await readFile(join(stepsDir, dir, 'scores.json'), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const scores = JSON.parse(text) as {
      step: string;
      details?: { tests?: { strict?: { cases?: CaseResult[] } } };
    };
    const cases = scores.details?.tests?.strict?.cases;
    const output = await readFile(join(stepsDir, dir, 'tests', 'junit.xml'), 'utf8').catch(() => '');
    if (cases) found.set(scores.step, { cases, output });
  }
  return found;
}

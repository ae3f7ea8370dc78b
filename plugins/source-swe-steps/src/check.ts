import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CommandContext, loadExperiment, startRun, stepOutcome } from '@longhaul/core';
import { type CheckResults, checkSettings, type Setting } from './report.js';

export interface CheckOptions {
  /** The dataset directory. */
  dataset: string;
  /** Where the experiment file and the run go. */
  runDir: string;
  /** The environment plugin the trials run in (docker: the dataset's image). */
  environment: string;
  concurrency: number;
}

/** The agents a check runs: the oracle writes each PR's gold tree, nochange changes nothing. */
export const checkAgents = ['oracle', 'nochange'] as const;

/**
 * The experiment a check runs: every chain of the dataset, the oracle and a scripted model that
 * changes nothing, in the three settings, one turn per PR, scored by the swe-steps scorer.
 */
export function checkExperiment(options: CheckOptions): string {
  return [
    'name: swe-steps-check',
    'description: the oracle and a do-nothing agent on every chain of a SWE-STEPS dataset, in the three settings',
    `source: { id: swe-steps, options: { path: ${JSON.stringify(options.dataset)} } }`,
    'models:',
    '  nochange:',
    '    backend: scripted',
    '    replies:',
    '      - { when: "", text: "I read the request and changed nothing." }',
    'harness:',
    '  - oracle',
    '  - { id: ide, label: nochange, options: { model: nochange } }',
    `environment: ${options.environment}`,
    'script:',
    ...checkSettings.map(
      ({ setting, script }) => `  - { id: ${script}, label: ${setting}, options: { prompt: swe-steps } }`,
    ),
    'memory: none',
    'scorers: [swe-steps]',
    'reporters: []',
    'repeats: 1',
    `concurrency: ${options.concurrency}`,
    'limits: { turnsPerStep: 1, trialUsd: 0, onError: continue }',
    '',
  ].join('\n');
}

/** Runs the check through the runner and reads each PR's outcome per agent and setting. */
export async function runCheck(options: CheckOptions, context: CommandContext): Promise<CheckResults> {
  await mkdir(options.runDir, { recursive: true });
  const file = join(options.runDir, 'check.yaml');
  await writeFile(file, checkExperiment(options));
  const installDir = context.installDir === undefined ? {} : { installDir: context.installDir };
  const experiment = await loadExperiment(file, { cwd: context.cwd, ...installDir });
  for (const warning of experiment.warnings) context.stderr.write(`warning: ${warning}\n`);
  const run = await startRun(experiment, {
    runDir: join(options.runDir, 'run'),
    openGateway: ({ models }) => context.openGateway(models, { baseDir: options.runDir, configFile: file }),
  });
  const results: CheckResults = new Map();
  for (const { spec, record } of run.trials) {
    const [agent = '', setting] = spec.condition.key.split('/') as [string, Setting];
    spec.task.steps.forEach((step, index) => {
      const pr = (step.metadata?.sweSteps as { pr?: number } | undefined)?.pr;
      if (pr === undefined) return;
      const done = record.steps.find((candidate) => candidate.index === index);
      const scores = done?.scores ?? {};
      // The kernel's outcome: a PR a fault or a cancel lost shows as an error, not as a failure.
      const outcome = stepOutcome(done, record.status);
      const success = scores['swe-steps.success'];
      const f2p = scores['swe-steps.f2p'];
      const [f2pPassed, f2pTotal] = [scores['swe-steps.f2p_passed'], scores['swe-steps.f2p_total']];
      const byAgent = results.get(pr) ?? new Map();
      results.set(pr, byAgent);
      const bySetting = byAgent.get(agent) ?? new Map();
      byAgent.set(agent, bySetting);
      bySetting.set(setting, {
        success: success === 1 || success === true,
        // The scorer's success is no value when no F2P test was left to judge the PR on.
        ...(success === null ? { judged: false } : {}),
        f2p: typeof f2p === 'number' ? f2p : null,
        ...(typeof f2pPassed === 'number' && typeof f2pTotal === 'number'
          ? { f2pTests: { passed: f2pPassed, total: f2pTotal } }
          : {}),
        ...(outcome.outcome === 'scored'
          ? {}
          : { error: outcome.outcome === 'errored' ? `error:${outcome.errorClass}` : outcome.outcome }),
      });
    });
  }
  return results;
}

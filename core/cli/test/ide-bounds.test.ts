import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrialRecord } from '@longhaul/core';
import { baseImageRef } from '@longhaul/environment-docker';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, repoRoot, spawnCli, waitForEvent, workDir } from './fixtures/resume/spawn-cli.js';

/*
 * An agent of the ide harness, through the real CLI, hands its tools what used to take the runner
 * down: a 200 MB file to read_file (`Fatal JavaScript invalid size error`, exit 133), and a
 * backtracking pattern to grep_search, which held the runner's thread (no turn limit, Ctrl-C and
 * SIGTERM ignored; only SIGKILL ended it). Each run must end on its own, as the user asked.
 */

const dockerReady = prerequisites.docker([baseImageRef()]);
const work = workDir('longhaul-ide-bounds-', [
  'core/kernel',
  'core/cli',
  'core/gateway',
  'harnesses/ide',
  'plugins/environment-local',
  'plugins/environment-docker',
]);

const trialId = 'parts.ide.fixture-steps.fixture-none.r1';
const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });
const done = [{ text: 'step 1 done' }, { text: 'step 2 done' }, { text: 'step 3 done' }];
const backtracking = [
  call('write_file', { file_path: 'a.txt', content: `${'a'.repeat(40)}!\n` }),
  call('grep_search', { query: '(a+)+$' }),
  ...done,
];

const running: CliProcess[] = [];
afterEach(() => {
  // A run that did not end (the old runner, held by a search) must not outlive its test.
  for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
});

async function start(
  name: string,
  replies: unknown[],
  options: { environment?: string; turnSeconds?: number; ide?: Record<string, unknown> } = {},
): Promise<{ run: CliProcess; runDir: string }> {
  const experiment = join(work(), `${name}.yaml`);
  await writeFile(
    experiment,
    JSON.stringify({
      name,
      plugins: [join(import.meta.dirname, 'fixtures/resume/plugin')],
      source: 'fixture-tasks',
      models: { agent: { backend: 'scripted', replies } },
      harness: { id: 'ide', options: { model: 'agent', explanation: 'optional', ...options.ide } },
      environment: options.environment ?? 'local',
      script: 'fixture-steps',
      memory: 'fixture-none',
      scorers: ['fixture-files'],
      reporters: ['fixture-summary'],
      repeats: 1,
      limits: {
        turnSeconds: options.turnSeconds ?? 300,
        stepSeconds: 600,
        turnsPerStep: 1,
        trialUsd: 0,
        onError: 'continue',
      },
    }),
  );
  const runDir = join(work(), `${name}-${process.pid}`);
  // Plugins are discovered from the repository's node_modules, as `npx longhaul` does.
  const run = spawnCli(['run', experiment, '--run-dir', runDir], repoRoot);
  running.push(run);
  return { run, runDir };
}

const trial = async (runDir: string) =>
  JSON.parse(await readFile(join(runDir, 'trials', trialId, 'trial.json'), 'utf8')) as TrialRecord;
const firstTrajectory = (runDir: string) =>
  readFile(join(runDir, 'trials', trialId, 'steps', '01-part-1', 'trajectory.jsonl'), 'utf8');

/** Waits until the runner is in the call of the named tool. */
const inTool = (run: CliProcess, runDir: string, tool: string) =>
  waitForEvent(
    runDir,
    (e) => e.type === 'trajectory' && e.event.type === 'tool.call' && e.event.name === tool,
    300_000,
    run,
  );

/** Resolves once the run has printed `text` on stderr; rejects if it ends first. */
function printed(run: CliProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    run.child.stderr?.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes(text)) resolve();
    });
    void run.done.then(() => reject(new Error(`the run ended without printing "${text}"`)));
  });
}

const environments = [
  { environment: 'local', ready: true },
  { environment: 'docker', ready: dockerReady },
];

describe.each(environments)('the ide harness in $environment, through the CLI', ({ environment, ready }) => {
  it.skipIf(!ready)(
    'answers read_file of a 200 MB file with an error result, and the run goes on to the end',
    async () => {
      const { run, runDir } = await start(
        `big-read-${environment}`,
        [
          call('run_terminal_cmd', { command: "head -c 200000000 /dev/zero | tr '\\0' '\\n' > nl.txt" }),
          call('read_file', { target_file: 'nl.txt' }),
          ...done,
        ],
        { environment },
      );
      const result = await run.done;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toContain('Fatal');
      expect((await trial(runDir)).steps.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
      expect(await firstTrajectory(runDir)).toContain(
        'nl.txt is 190.7 MiB, larger than the 32.0 MiB read_file reads',
      );
    },
    900_000,
  );

  it.skipIf(!ready)(
    "ends a turn held by a backtracking grep_search at the turn's limit",
    async () => {
      const { run, runDir } = await start(`backtracking-${environment}`, backtracking, {
        environment,
        turnSeconds: 10,
      });
      const result = await run.done;
      expect(result.stderr).not.toContain('Fatal');
      const steps = (await trial(runDir)).steps;
      expect(steps[0]!.status).toBe('timeout');
      expect(steps.slice(1).map((s) => s.status)).toEqual(['ok', 'ok']);
      expect(await firstTrajectory(runDir)).toContain('"name":"grep_search"');
    },
    900_000,
  );
});

describe('the ide harness in local, through the CLI, during a tool call that takes long', () => {
  it('stops at a second Ctrl-C, exits 130, and the step is cancelled', async () => {
    const { run, runDir } = await start('interrupted', backtracking, {
      ide: { searchTimeoutSeconds: 3600 },
    });
    await inTool(run, runDir, 'grep_search');
    const stopping = printed(run, 'stopping: no new trials');
    run.child.kill('SIGINT');
    // The runner answers the first Ctrl-C while the search runs: it is not holding its thread.
    await stopping;
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('stopping: no new trials');
    expect((await trial(runDir)).steps.map((s) => s.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  }, 600_000);

  it('stops at SIGTERM, exits 130, and the step is cancelled', async () => {
    const { run, runDir } = await start('terminated', backtracking, { ide: { searchTimeoutSeconds: 3600 } });
    await inTool(run, runDir, 'grep_search');
    run.child.kill('SIGTERM');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('terminating: running turns and scoring are aborted');
    expect((await trial(runDir)).steps[0]!.status).toBe('cancelled');
  }, 600_000);
});

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunStore, type TrialRecord } from '@longhaul/core';
import { baseImageRef } from '@longhaul/environment-docker';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { repoRoot, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';

const writer = (file: string) => `while :; do echo x >> ${file}; sleep 0.1; done`;
const command = (text: string, background = false) => ({
  toolCalls: [
    { name: 'run_terminal_cmd', input: { command: text, ...(background ? { is_background: true } : {}) } },
  ],
});

/**
 * The agent's model: in step 1 it detaches a writer from a command and starts another in the
 * background (and sees it keep writing during the step); step 2 only waits.
 */
const replies = [
  command(`setsid -f sh -c '${writer('detached.log')}' > /dev/null 2>&1; sleep 1`),
  command(writer('background.log'), true),
  command('a=$(wc -c < background.log); sleep 2; b=$(wc -c < background.log); echo "grew $((b - a))"'),
  { text: 'step 1 done' },
  command('sleep 3'),
  { text: 'step 2 done' },
  { text: 'step 3 done' },
];

const dockerReady = prerequisites.docker([baseImageRef()]);
const work = workDir('longhaul-containment-docker-', [
  'core/kernel',
  'core/cli',
  'core/gateway',
  'harnesses/ide',
  'plugins/environment-docker',
]);

describe.skipIf(!dockerReady)('processes an agent leaves in a docker sandbox', () => {
  it("do not reach the next step: step 1's detached and background writers write nothing during step 2", async () => {
    const experiment = join(work(), 'containment.yaml');
    await writeFile(
      experiment,
      JSON.stringify({
        name: 'containment',
        plugins: [join(import.meta.dirname, 'fixtures/resume/plugin')],
        source: 'fixture-tasks',
        models: { agent: { backend: 'scripted', replies } },
        harness: { id: 'ide', options: { model: 'agent', explanation: 'optional' } },
        environment: 'docker',
        script: 'fixture-steps',
        memory: 'fixture-none',
        scorers: ['fixture-files'],
        reporters: ['fixture-summary'],
        repeats: 1,
        limits: { turnSeconds: 300, stepSeconds: 600, turnsPerStep: 1, trialUsd: 0, onError: 'stop' },
      }),
    );
    const runDir = join(work(), `run-${process.pid}`);
    // Plugins are discovered from the repository's node_modules, as `npx longhaul` does.
    const result = await spawnCli(['run', experiment, '--run-dir', runDir], repoRoot).done;
    expect(result.code, result.stderr).toBe(0);

    const trialId = 'parts.ide.fixture-steps.fixture-none.r1';
    const record = JSON.parse(
      await readFile(join(runDir, 'trials', trialId, 'trial.json'), 'utf8'),
    ) as TrialRecord;
    const store = new RunStore(runDir);
    const sizes = async (ref: string | undefined) =>
      Object.fromEntries(
        (await store.snapshots.get(ref!))
          .filter((f) => f.path.endsWith('.log'))
          .map((f) => [f.path, f.data.length]),
      );
    const [step1, step2, step3] = await Promise.all(record.steps.map((s) => sizes(s.snapshot)));
    expect(step1!['detached.log']).toBeGreaterThan(0);
    expect(step1!['background.log']).toBeGreaterThan(0);
    expect(step2, 'something of step 1 wrote into the workspace during step 2').toEqual(step1);
    expect(step3).toEqual(step1);

    // The background writer did run on while the step went on.
    const trajectory = await readFile(
      join(runDir, 'trials', trialId, 'steps', '01-part-1', 'trajectory.jsonl'),
      'utf8',
    );
    const grew = Number(/grew (\d+)/.exec(trajectory)?.[1]);
    expect(grew).toBeGreaterThan(0);
  }, 1_200_000);
});

import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  quickstartPackages,
  repoRoot,
  spawnCli,
  turnStarts,
  waitForEvent,
  workDir,
} from './fixtures/resume/spawn-cli.js';

const quickstart = join(repoRoot, 'examples/quickstart.yaml');

const work = workDir('longhaul-quickstart-', quickstartPackages);

/** summary.json without what depends on when and where the run ran. */
function untimed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untimed);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !['durationMs', 'wallMs', 'startedAt', 'endedAt', 'runDir'].includes(key))
        .map(([key, inner]) => [key, untimed(inner)]),
    );
  }
  return value;
}

describe('the quickstart, killed with SIGKILL mid-trial and resumed', () => {
  it('scores every step as an uninterrupted run does, running no complete step twice', async () => {
    // Plugins are discovered from the repository's node_modules, as `npx longhaul` does.
    const reference = join(work(), 'reference');
    const whole = await spawnCli(['run', quickstart, '--run-dir', reference], repoRoot).done;
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stderr).toContain("warning: environment 'local' has no isolation");

    const runDir = join(work(), 'killed');
    const run = spawnCli(['run', quickstart, '--run-dir', runDir], repoRoot);
    await waitForEvent(runDir, (e) => e.type === 'turn.start' && e.steps.includes(1), 120_000, run);
    run.child.kill('SIGKILL');
    await run.done;
    const stepDir = join(runDir, 'trials/worklog.oracle.checkpoints.none.r1/steps');
    await access(join(stepDir, '01-csv-summary/scores.json'));
    await expect(access(join(stepDir, '02-jsonl-and-filters/scores.json'))).rejects.toThrow();

    const resumed = await spawnCli(['resume', runDir], repoRoot).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await turnStarts(runDir)).toEqual({
      'worklog.oracle.checkpoints.none.r1#0': 1,
      'worklog.oracle.checkpoints.none.r1#1': 2,
      'worklog.oracle.checkpoints.none.r1#2': 1,
      'worklog.oracle.checkpoints.none.r1#3': 1,
    });
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
    const expected = JSON.parse(await readFile(join(reference, 'summary.json'), 'utf8'));
    expect(untimed(summary)).toEqual(untimed(expected));
    expect(
      summary.trials[0].steps.map((s: { scores: Record<string, number> }) => s.scores['tests.strict']),
    ).toEqual([1, 1, 1, 1]);
  }, 900_000);
});

import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureExperiment, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';
import { runCli } from './run-cli.js';

const work = workDir('longhaul-run-selection-');

describe('longhaul --version', () => {
  it("prints the CLI package's version", async () => {
    const { version } = JSON.parse(await readFile(join(import.meta.dirname, '../package.json'), 'utf8'));
    expect(await runCli(['--version'], work())).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('longhaul run --tasks and --limit', () => {
  it('--limit 1 runs only the first trial of the plan, and the run keeps the limit for resume', async () => {
    const runDir = join(work(), 'limited');
    const result = await spawnCli(['run', fixtureExperiment, '--run-dir', runDir, '--limit', '1'], work())
      .done;
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('1 trials: ok\n');
    expect(await readdir(join(runDir, 'trials'))).toEqual([
      'parts.fixture-writer.fixture-steps.fixture-none.r1',
    ]);
    expect(await readFile(join(runDir, 'experiment.yaml'), 'utf8')).toMatch(/^trialLimit: 1$/m);
    const resumed = await spawnCli(['resume', runDir], work()).done;
    expect(resumed.code).toBe(0);
    expect(await readdir(join(runDir, 'trials'))).toHaveLength(1);
  });

  it('--tasks runs the tasks its ids or globs match', async () => {
    const runDir = join(work(), 'selected');
    const result = await spawnCli(
      ['run', fixtureExperiment, '--run-dir', runDir, '--tasks', 'nothing,p?rt*'],
      work(),
    ).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("--tasks: no task matches 'nothing' (tasks: parts)\n1 problem found\n");
    await expect(access(runDir)).rejects.toThrow();

    const ok = await spawnCli(['run', fixtureExperiment, '--run-dir', runDir, '--tasks', ' p?rt* '], work())
      .done;
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('2 trials: ok, ok\n');
  });

  it('--limit 0, a fraction, or an empty --tasks is refused before anything runs', async () => {
    for (const [flag, value, message] of [
      [
        '--limit',
        '0',
        "error: option '--limit <n>' argument '0' is invalid. limit must be a positive integer\n",
      ],
      [
        '--limit',
        '1.5',
        "error: option '--limit <n>' argument '1.5' is invalid. limit must be a positive integer\n",
      ],
      [
        '--tasks',
        ' , ',
        "error: option '--tasks <patterns>' argument ' , ' is invalid. give task ids or globs, comma-separated\n",
      ],
    ]) {
      const result = await runCli(['run', fixtureExperiment, flag!, value!], work());
      expect(result).toEqual({ code: 1, stdout: '', stderr: message });
    }
    expect(await readdir(work())).not.toContain('runs');
  });
});

import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureExperiment, spawnCli, waitForEvent, workDir } from './fixtures/resume/spawn-cli.js';

const work = workDir('longhaul-live-');

/** Every file under `dir` with a hash of its content: what "nothing changed" compares. */
async function contents(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    files[relative(dir, path)] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  return files;
}

describe('resume, retry and regrade of a run another process is writing', () => {
  it('are refused without touching the run while its writer lives, and resume works once it is killed', async () => {
    const runDir = join(work(), 'run');
    const run = spawnCli(['run', fixtureExperiment, '--run-dir', runDir], work());
    const pid = run.child.pid!;
    try {
      // Once a trial has ended ok, `retry --status ok` would move it aside if it were let in.
      await waitForEvent(runDir, (e) => e.type === 'trial.end', 120_000, run);
      // Frozen, the writer stays alive but changes nothing while the refusals are checked.
      run.child.kill('SIGSTOP');
      expect(JSON.parse(await readFile(join(runDir, 'writer.lock'), 'utf8'))).toMatchObject({
        pid,
        command: 'longhaul run',
      });
      const before = await contents(runDir);
      for (const args of [
        ['resume', runDir],
        ['retry', runDir, '--status', 'ok'],
        ['run', fixtureExperiment, '--run-dir', runDir],
        ['regrade', runDir],
      ]) {
        const refused = await spawnCli(args, work()).done;
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(`${runDir}: the run is being written by process ${pid}`);
        expect(refused.stderr).toContain(`stop it (kill ${pid}), then run this again`);
      }
      expect(await contents(runDir)).toEqual(before);
    } finally {
      run.child.kill('SIGKILL');
    }
    expect((await run.done).signal).toBe('SIGKILL');

    const resumed = await spawnCli(['resume', runDir], work()).done;
    expect(resumed.stderr).toContain(`resuming ${runDir}`);
    expect(resumed.code).toBe(0);
    const files = await contents(runDir);
    expect(files['summary.json']).toBeDefined();
    // A clean exit clears the lock; nothing of the takeover is left behind.
    expect(Object.keys(files).filter((name) => name.includes('writer.lock'))).toEqual([]);
  }, 300_000);
});

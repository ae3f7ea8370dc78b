import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureExperiment, repoRoot, waitForEvent, workDir } from './fixtures/resume/spawn-cli.js';

const work = workDir('longhaul-stale-writer-');
const bin = join(repoRoot, 'core/cli/bin/longhaul.js');

/** Fields 3 on of /proc/<pid>/stat: [0] the state, [19] the start time. */
async function stat(pid: number): Promise<string[]> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function exitOf(child: ReturnType<typeof spawn>) {
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
}

describe('resume of a run whose writer.lock names a process that holds nothing', () => {
  it('proceeds past a killed runner left a zombie, and past a pid now used by another program', async () => {
    const runDir = join(work(), 'run');
    // The runner's parent is a shell that execs `sleep`, which never reaps children: killed, the
    // runner stays a zombie, as under a container's init that reaps no orphans.
    const parent = spawn(
      'bash',
      [
        '-c',
        `"$0" "$1" run "$2" --run-dir "$3" 2>/dev/null & echo $!; exec sleep 600`,
        process.execPath,
        bin,
        fixtureExperiment,
        runDir,
      ],
      { cwd: work(), stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const stopping = [() => parent.kill('SIGKILL')];
    try {
      const pid = await new Promise<number>((resolve) =>
        parent.stdout!.once('data', (chunk) => resolve(Number(String(chunk).trim()))),
      );
      await waitForEvent(runDir, (e) => e.type === 'turn.start' && e.steps.includes(1), 120_000);
      const lock = JSON.parse(await readFile(join(runDir, 'writer.lock'), 'utf8'));
      expect(lock.pid).toBe(pid);
      process.kill(pid, 'SIGKILL');
      await until(async () => (await stat(pid))[0] === 'Z', `process ${pid} a zombie`);

      const resumed = await exitOf(
        spawn(process.execPath, [bin, 'resume', runDir], {
          cwd: work(),
          stdio: ['ignore', 'ignore', 'pipe'],
        }),
      );
      expect(resumed.stderr).not.toContain('is being written by process');
      expect(resumed.code, resumed.stderr).toBe(0);
      const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
      expect(summary.trials.map((t: { status: string }) => t.status)).toEqual(['ok', 'ok']);

      // The lock now names a live process, `sleep`, started seconds after the writer it records:
      // the writer's pid was reused by another program, and the writer is gone.
      const other = spawn('sleep', ['600'], { stdio: 'ignore' });
      const sleeper = other.pid!;
      stopping.push(() => other.kill('SIGKILL'));
      expect((await stat(sleeper))[19]).not.toBe(lock.processStart);
      await writeFile(join(runDir, 'writer.lock'), JSON.stringify({ ...lock, pid: sleeper }));
      const again = await exitOf(
        spawn(process.execPath, [bin, 'resume', runDir], {
          cwd: work(),
          stdio: ['ignore', 'ignore', 'pipe'],
        }),
      );
      expect(again.stderr).not.toContain('is being written by process');
      expect(again.code, again.stderr).toBe(0);
    } finally {
      for (const stop of stopping) stop();
    }
  }, 300_000);
});

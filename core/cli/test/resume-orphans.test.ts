import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { quickstartPackages, repoRoot, spawnCli, turnStarts, workDir } from './fixtures/resume/spawn-cli.js';

// The quickstart killed with SIGKILL while the hidden tests of its second step run, and resumed.
// The tests' `python3` is a wrapper that, in that step, leaves processes behind the way a test
// suite or an agent can: one detached into a session of its own (`setsid -f`), one also started
// with a cleared environment (`env -i`: only a cgroup holds it), and itself sleeping. The runner's
// whole process group and its process launcher (a session of its own) are killed at once, so
// nothing of the run is left to end them: `resume` must, as it reclaims the dead run's sandboxes.

const work = workDir('longhaul-orphans-', quickstartPackages);
const quickstart = join(repoRoot, 'examples/quickstart.yaml');
const bin = join(repoRoot, 'core/cli/bin/longhaul.js');
const trialId = 'worklog.oracle.checkpoints.none.r1';
const waitMs = 240_000;

/** The hidden tests' python3: in step 2 (filters written, no store yet), leaves three processes. */
const wrapper = (dir: string, cleared: boolean) => `#!/bin/sh
if [ -f ${dir}/hold ] && [ -e worklog/filters.py ] && [ ! -e worklog/store.py ] && mkdir ${dir}/held 2>/dev/null; then
  setsid -f sh -c 'echo $$ > ${dir}/marked.pid; exec sleep 900'
  ${cleared ? `env -i /bin/sh -c 'setsid -f /bin/sh -c "echo \\$\\$ > ${dir}/cleared.pid; while :; do echo x >> ${dir}/cleared.log; sleep 0.1; done"'` : `echo none > ${dir}/cleared.pid`}
  while [ ! -s ${dir}/marked.pid ] || [ ! -s ${dir}/cleared.pid ]; do sleep 0.05; done
  echo $$ > ${dir}/test.pid
  exec sleep 900
fi
PATH=\${PATH#*:} exec python3 "$@"
`;

/** Running, not a zombie waiting to be reaped. */
async function running(pid: number): Promise<boolean> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${waitMs} ms`);
    await delay(25);
  }
}

/** The process launcher the runner started: its child running process-launcher.mjs. */
async function launcherOf(runner: number): Promise<number | undefined> {
  for (const name of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    const text = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]) !== runner) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('process-launcher')) return Number(name);
  }
  return undefined;
}

describe('the quickstart killed with kill -9 while its tests run, and resumed', () => {
  it('ends every process the dead run left, however detached, and resume ends 100% strict', async () => {
    const dir = work();
    // Where the host gives plain sandboxes no cgroups, validate says so and a cleared environment
    // escapes: then only the marked processes are held to it (CI must have cgroups).
    const validate = await spawnCli(['validate', quickstart], repoRoot).done;
    const contained = !validate.stderr.includes('cannot end every process');
    if (process.env.CI === 'true') expect(contained, validate.stderr).toBe(true);
    // The sandbox's commands run as a user of their own where the runner is root (as in CI): they
    // run this folder's python3 and leave their pids in it.
    await chmod(dir, 0o1777);
    const holdBin = join(dir, 'bin');
    await mkdir(holdBin);
    await writeFile(join(holdBin, 'python3'), wrapper(dir, contained));
    await chmod(join(holdBin, 'python3'), 0o755);
    await writeFile(join(dir, 'hold'), '');
    const runDir = join(dir, 'run');

    const runner = spawn(process.execPath, [bin, 'run', quickstart, '--run-dir', runDir], {
      cwd: repoRoot,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, PATH: `${holdBin}:${process.env.PATH}` },
    });
    const exited = new Promise((resolve) => runner.once('exit', resolve));
    const runnerPid = runner.pid!;
    const testPid = await until('step 2 tests held', async () => {
      const text = await readFile(join(dir, 'test.pid'), 'utf8').catch(() => '');
      return text.trim() ? Number(text) : undefined;
    });
    const launcher = await launcherOf(runnerPid);
    expect(launcher).toBeDefined();
    // Everything of the run at once: its group and the launcher's session.
    process.kill(launcher!, 'SIGKILL');
    process.kill(-runnerPid, 'SIGKILL');
    await exited;

    const pidIn = async (name: string) => Number((await readFile(join(dir, name), 'utf8')).trim());
    const left = [testPid, await pidIn('marked.pid'), ...(contained ? [await pidIn('cleared.pid')] : [])];
    for (const pid of left) expect(await running(pid), `${pid} was left by the killed run`).toBe(true);

    await rm(join(dir, 'hold'));
    const resumed = await spawnCli(['resume', runDir], repoRoot).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const pid of left) expect(await running(pid), `${pid} outlived resume`).toBe(false);
    if (contained) {
      const size = (await stat(join(dir, 'cleared.log'))).size;
      await delay(600);
      expect((await stat(join(dir, 'cleared.log'))).size, 'the env -i writer still writes').toBe(size);
    }
    expect(await turnStarts(runDir)).toEqual({
      [`${trialId}#0`]: 1,
      [`${trialId}#1`]: 2,
      [`${trialId}#2`]: 1,
      [`${trialId}#3`]: 1,
    });
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
    expect(
      summary.trials[0].steps.map((s: { scores: Record<string, number> }) => s.scores['tests.strict']),
    ).toEqual([1, 1, 1, 1]);
  }, 900_000);
});

import { execFile } from 'node:child_process';
import { access, chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TrialRecord } from '@longhaul/core';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, describe, expect, it } from 'vitest';
import {
  quickstartPackages,
  readEvents,
  repoRoot,
  turnStarts,
  workDir,
} from './fixtures/resume/spawn-cli.js';

// The quickstart in a real terminal (tmux, an interactive bash with job control), stopped the
// ways a user stops it: Ctrl-C typed once (the grace runs out) and twice, SIGINT to the run's
// process group, SIGTERM to the runner; each once while a step is scored and once while its
// agent turn runs. Each stop is made at a chosen step by holding it there: the hidden tests'
// `python3` is a wrapper that waits while a hold file names the step's workspace, and the oracle
// harness waits while its pauseFile names the step. Every wait is for a file or an event.

const work = workDir('longhaul-interrupt-', quickstartPackages);
const exec = promisify(execFile);
const trialId = 'worklog.oracle.checkpoints.none.r1';
const stepDirs = ['01-csv-summary', '02-jsonl-and-filters', '03-store-and-formats', '04-budgets'];
const stepIds = ['csv-summary', 'jsonl-and-filters', 'store-and-formats', 'budgets'];
/** A file each step's workspace has and one it lacks, which tell its hidden tests apart. */
const workspaceOf = [
  ['main.py', 'worklog'],
  ['worklog/filters.py', 'worklog/store.py'],
  ['worklog/store.py', 'worklog/budget.py'],
  ['worklog/budget.py', 'worklog/none'],
];
const waitMs = 240_000;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The hidden tests' python3: held while `scoring` names a file the workspace has and one it lacks. */
const wrapper = (dir: string) => `#!/bin/sh
hold=${dir}/scoring
if [ -f "$hold" ]; then
  read has lacks < "$hold"
  if [ -e "$has" ] && [ ! -e "$lacks" ]; then
    touch ${dir}/scoring.reached
    while [ -f "$hold" ]; do sleep 0.05; done
  fi
fi
PATH=\${PATH#*:} exec python3 "$@"
`;

/** A terminal: a tmux server of the test's own, one window running an interactive bash. */
class Terminal {
  constructor(
    private readonly socket: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  tmux(...args: string[]) {
    return exec('tmux', ['-S', this.socket, ...args], { env: this.env });
  }

  async start(): Promise<void> {
    await this.tmux(
      'new-session',
      '-d',
      '-s',
      'run',
      '-x',
      '200',
      '-y',
      '50',
      '-c',
      repoRoot,
      'bash --norc --noprofile -i',
    );
  }

  async type(line: string): Promise<void> {
    await this.tmux('send-keys', '-t', 'run', '-l', line);
    await this.tmux('send-keys', '-t', 'run', 'Enter');
  }

  async keys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 'run', ...keys);
  }

  async screen(): Promise<string> {
    return (await this.tmux('capture-pane', '-p', '-t', 'run', '-S', '-60')).stdout;
  }

  async stop(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
  }
}

describe.skipIf(!prerequisites.tmux())('a run stopped from a terminal, and resumed', () => {
  let terminal: Terminal | undefined;
  afterAll(() => terminal?.stop());

  it('ends the interrupted step cancelled each way, and resume re-runs it alone to 100% strict', async () => {
    const dir = work();
    const runDir = join(dir, 'run');
    // The sandbox's commands run as a user of their own where the runner is root (as in CI): they
    // run this folder's python3 and leave their pids in it.
    await chmod(dir, 0o1777);
    const holdBin = join(dir, 'bin');
    await mkdir(holdBin);
    await writeFile(join(holdBin, 'python3'), wrapper(dir));
    await chmod(join(holdBin, 'python3'), 0o755);
    const pauseFile = join(dir, 'pause');
    const env = { ...process.env, PATH: `${holdBin}:${process.env.PATH}`, PS1: '$ ' };
    terminal = new Terminal(join(dir, 'tmux.sock'), env);
    await terminal.start();
    const term = terminal;

    const until = async <T>(what: string, check: () => Promise<T | undefined>): Promise<T> => {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const value = await check();
        if (value !== undefined) return value;
        if (Date.now() > deadline)
          throw new Error(`${what}: not within ${waitMs} ms\n${await term.screen()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const trial = async () =>
      JSON.parse(await readFile(join(runDir, 'trials', trialId, 'trial.json'), 'utf8')) as TrialRecord;
    const turnsOf = async (step: number) => (await turnStarts(runDir))[`${trialId}#${step}`] ?? 0;
    /** The runner's pid, from writer.lock, once the invocation took the run. */
    const runner = (previous: number | undefined) =>
      until('the runner took the run', async () => {
        const text = await readFile(join(runDir, 'writer.lock'), 'utf8').catch(() => '');
        const pid = text ? (JSON.parse(text) as { pid: number }).pid : undefined;
        return pid !== undefined && pid !== previous ? pid : undefined;
      });
    /** Processes whose command line names the hold directory: the held tests the run left. */
    const held = async () => {
      const left: string[] = [];
      for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
        const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (cmdline.includes(holdBin)) left.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`);
      }
      return left;
    };

    let invocation = 0;
    let lastPid: number | undefined;
    const stops: { how: string; step: number; seconds: number }[] = [];
    /**
     * Starts `run` (the first time) or `resume`, holds it at `step` (in its scoring or its agent
     * turn), stops it with `interrupt`, and checks what it left: the step `cancelled` without
     * scores, the steps before it complete, nothing of the held tests running.
     */
    const stopAt = async (
      step: number,
      where: 'scoring' | 'turn',
      how: string,
      interrupt: (pid: number) => Promise<void>,
    ) => {
      invocation++;
      const exitFile = join(dir, `exit-${invocation}`);
      await rm(join(dir, 'scoring.reached'), { force: true });
      if (where === 'scoring') await writeFile(join(dir, 'scoring'), `${workspaceOf[step]!.join(' ')}\n`);
      else await writeFile(pauseFile, `${stepIds[step]}\n`);
      const turnsBefore = await turnsOf(step);
      const started = Date.now();
      await term.type(
        invocation === 1
          ? `node core/cli/bin/longhaul.js run examples/quickstart.yaml --run-dir ${runDir} --grace 1 --set harness.options.pauseFile=${pauseFile}; echo $? > ${exitFile}`
          : `node core/cli/bin/longhaul.js resume ${runDir} --grace 1; echo $? > ${exitFile}`,
      );
      const pid = await runner(lastPid);
      lastPid = pid;
      if (where === 'scoring') {
        await until(`step ${step + 1}'s tests held`, async () =>
          (await exists(join(dir, 'scoring.reached'))) ? true : undefined,
        );
      } else {
        await until(`step ${step + 1}'s turn started`, async () =>
          (await turnsOf(step)) > turnsBefore ? true : undefined,
        );
      }
      await interrupt(pid);
      const code = await until('the run exited', async () => {
        const text = await readFile(exitFile, 'utf8').catch(() => '');
        return text ? Number(text.trim()) : undefined;
      });
      stops.push({ how: `${how} during ${where}`, step, seconds: (Date.now() - started) / 1000 });
      expect(code, await term.screen()).not.toBe(0);
      expect(await held()).toEqual([]);
      await rm(join(dir, 'scoring'), { force: true });
      await rm(pauseFile, { force: true });
      const record = await trial();
      expect(record.status).toBe('cancelled');
      expect(record.steps.map((s) => s.status).slice(0, step + 1)).toEqual([
        ...Array(step).fill('ok'),
        'cancelled',
      ]);
      const stepsDir = join(runDir, 'trials', trialId, 'steps');
      for (const [i, name] of stepDirs.entries())
        expect(await exists(join(stepsDir, name, 'scores.json')), name).toBe(i < step);
      expect(JSON.stringify(await readEvents(runDir))).not.toContain('error:');
    };

    const ctrlC = () => term.keys('C-c');
    const ctrlCTwice = () => term.keys('C-c', 'C-c');
    const groupInt = async (pid: number) => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      // The shell made the run a job: its group is its own, not the test's.
      expect(pgid).toBe(pid);
      process.kill(-pgid, 'SIGINT');
    };
    const term15 = async (pid: number) => {
      process.kill(pid, 'SIGTERM');
    };

    await stopAt(1, 'scoring', 'Ctrl-C (the grace runs out)', ctrlC);
    await stopAt(1, 'turn', 'Ctrl-C twice', ctrlCTwice);
    await stopAt(2, 'scoring', 'SIGINT to the process group', groupInt);
    await stopAt(2, 'turn', 'SIGINT to the process group', groupInt);
    await stopAt(3, 'scoring', 'SIGTERM to the runner', term15);
    await stopAt(3, 'turn', 'SIGTERM to the runner', term15);

    const started = Date.now();
    const exitFile = join(dir, 'exit-last');
    await term.type(`node core/cli/bin/longhaul.js resume ${runDir}; echo $? > ${exitFile}`);
    const code = await until('the last resume exited', async () => {
      const text = await readFile(exitFile, 'utf8').catch(() => '');
      return text ? Number(text.trim()) : undefined;
    });
    expect(code, await term.screen()).toBe(0);
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
    expect(
      summary.trials[0].steps.map((s: { scores: Record<string, number> }) => s.scores['tests.strict']),
    ).toEqual([1, 1, 1, 1]);
    expect((await trial()).status).toBe('ok');
    // The first step ran once; each later one was stopped twice and then ran to its end.
    expect(await turnStarts(runDir)).toEqual({
      [`${trialId}#0`]: 1,
      [`${trialId}#1`]: 3,
      [`${trialId}#2`]: 3,
      [`${trialId}#3`]: 3,
    });
    const figures = stops.map((s) => `${s.how} at step ${s.step + 1}: ${s.seconds.toFixed(1)}s`);
    console.log(`${figures.join('\n')}\nlast resume: ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }, 1_800_000);
});

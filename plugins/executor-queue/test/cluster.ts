import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runIdOf } from '@longhaul/core';
import { expect } from 'vitest';

export const repoRoot = resolve(import.meta.dirname, '../../..');
export const experiment = join(import.meta.dirname, 'fixtures/tally.yaml');
const bin = join(repoRoot, 'core/cli/bin/longhaul.js');

/** A free loopback TCP port. */
async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Waits until `check` holds, polling; fails after `ms` with `what`. */
export async function until(
  check: () => Promise<boolean> | boolean,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(args[0]!, args.slice(1), { cwd, env: { ...process.env, ...env }, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => output, exited };
}

/**
 * A throwaway cluster: its own redis-server (append-only file synced on every write, so a restart,
 * even after SIGKILL, keeps the jobs), workers each in its own working directory, and a
 * coordinator. Everything it starts is stopped by `close`.
 */
export class Cluster {
  readonly procs: Proc[] = [];
  redis?: Proc;
  port = 0;

  private constructor(readonly dir: string) {}

  static async create(): Promise<Cluster> {
    const cluster = new Cluster(await mkdtemp(join(tmpdir(), 'longhaul-queue-')));
    cluster.port = await freePort();
    await cluster.startRedis();
    return cluster;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get runDir(): string {
    return join(this.dir, 'run');
  }

  /** The run's id, as the coordinator gives it to the workers. */
  get runId(): string {
    return runIdOf(this.runDir);
  }

  /** A worker's log lines `trial <id> of <this run>: <what>`. */
  trialLines(output: string, what: 'started' | 'ok'): string[] {
    return output.split('\n').flatMap((line) => {
      const match = /trial \S+ of (\S+): (\w+)/.exec(line);
      return match && match[1] === this.runId && match[2] === what ? [match[0]] : [];
    });
  }

  async startRedis(): Promise<void> {
    const data = join(this.dir, 'redis');
    await mkdir(data, { recursive: true });
    this.redis = start(
      [
        'redis-server',
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        data,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
      ],
      data,
    );
    await until(() => this.redis!.output().includes('Ready to accept connections'), 60_000, 'redis-server');
  }

  /** Stops redis-server: SIGTERM lets it shut down, SIGKILL drops it as a crash would. */
  async stopRedis(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.redis?.child.kill(signal);
    await this.redis?.exited;
  }

  async worker(name: string, extra: string[] = []): Promise<Proc> {
    const cwd = join(this.dir, name);
    await mkdir(cwd, { recursive: true });
    const proc = start(
      ['node', bin, 'worker', '--queue', this.url, '--plugins', repoRoot, '--lock-seconds', '5', ...extra],
      cwd,
    );
    this.procs.push(proc);
    return proc;
  }

  coordinator(command: 'run' | 'resume', extra: string[] = []): Proc {
    const args =
      command === 'run'
        ? ['run', experiment, '--executor', 'queue', '--run-dir', this.runDir, ...extra]
        : ['resume', this.runDir, ...extra];
    const proc = start(['node', bin, ...args], repoRoot, { LONGHAUL_QUEUE: this.url });
    this.procs.push(proc);
    return proc;
  }

  /** The same experiment with the in-process executor, into `runDir`. */
  localRun(runDir: string): Proc {
    const proc = start(['node', bin, 'run', experiment, '--run-dir', runDir], repoRoot);
    this.procs.push(proc);
    return proc;
  }

  async summary(
    runDir = this.runDir,
  ): Promise<{ trials: { id: string; status: string; steps: { scores: Record<string, unknown> }[] }[] }> {
    return JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
  }

  async close(): Promise<void> {
    for (const proc of this.procs) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await Promise.all(this.procs.map((proc) => proc.exited));
    await this.stopRedis();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Flags for a coordinator: `repeats` trials, the run store read every second, and `extra`. */
export function runFlags(repeats: number, ...extra: string[]): string[] {
  return ['--set', `repeats=${repeats}`, '--set', 'executor.options.pollSeconds=1', ...extra];
}

/** summary.json holds `count` trials, each ok with every step passing. */
export async function expectAllPassed(cluster: Cluster, count: number) {
  const summary = await cluster.summary();
  expect(summary.trials).toHaveLength(count);
  for (const trial of summary.trials) {
    expect(trial.status, JSON.stringify(trial)).toBe('ok');
    expect(trial.steps.map((s) => s.scores['tests.strict'])).toEqual([1, 1, 1]);
  }
  return summary;
}

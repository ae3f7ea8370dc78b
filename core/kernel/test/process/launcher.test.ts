import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ClassifiedError } from '../../src/contracts/status.js';
import { type LaunchedProcess, ProcessLauncher } from '../../src/process/launcher.js';

const cwd = mkdtempSync(join(tmpdir(), 'longhaul-launcher-'));
const launcher = new ProcessLauncher();

afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Starts `argv` and collects its output. */
async function run(
  argv: string[],
  extra: { stdin?: string; env?: Record<string, string>; cap?: number } = {},
) {
  const output = { stdout: '', stderr: '' };
  const launched = await launcher.launch(argv, {
    cwd,
    env: extra.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdin: extra.stdin,
    maxOutputBytes: extra.cap ?? 1_000,
    onOutput: (stream, chunk) => (output[stream] += chunk.toString('utf8')),
  });
  return { launched, output };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('process launcher', () => {
  it('runs a command in a process of its own, with its output, stdin and exit code', async () => {
    const { launched, output } = await run(['sh', '-c', 'cat; echo err >&2; exit 3'], { stdin: 'in put' });
    const started = launched as LaunchedProcess;
    expect((await started.exit).exitCode).toBe(3);
    await started.closed;
    expect(output).toEqual({ stdout: 'in put', stderr: 'err\n' });
    // Not a child of the runner: of the launcher.
    expect(launcher.pid).toBeDefined();
    expect(launcher.pid).not.toBe(process.pid);
  });

  it('gives the command only the environment it is given', async () => {
    const { launched, output } = await run(['/usr/bin/env'], { env: { ONLY: 'this' } });
    await (launched as LaunchedProcess).closed;
    expect(output.stdout).toBe('ONLY=this\n');
  });

  it('reports a program that cannot start with its code', async () => {
    const { launched } = await run(['no-such-program-here']);
    expect(launched.pid).toBeUndefined();
    expect(launched).toMatchObject({
      spawnCode: 'ENOENT',
      spawnError: expect.stringMatching(/no-such-program-here/),
    });
  });

  it('forwards output up to the cap and one byte more', async () => {
    const { launched, output } = await run(['sh', '-c', 'head -c 100000 /dev/zero | tr "\\0" a'], {
      cap: 10,
    });
    await (launched as LaunchedProcess).closed;
    expect(output.stdout).toBe('a'.repeat(11));
  });

  it('fails the commands of a launcher that dies, kills them, and starts a new launcher for the next', async () => {
    const { launched } = await run(['sh', '-c', 'sleep 30 & sleep 30']);
    const started = launched as LaunchedProcess;
    const first = launcher.pid!;
    process.kill(first, 'SIGKILL');
    const error = await started.exit.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ClassifiedError);
    expect(error).toMatchObject({
      errorClass: 'sandbox',
      message: expect.stringMatching(/process launcher .* died/),
    });
    await started.closed;
    // The command's whole group is gone, not left to run without anyone reading its output.
    for (let i = 0; i < 600 && alive(started.pid); i++) await delay(100);
    expect(alive(started.pid)).toBe(false);

    const next = await run(['sh', '-c', 'echo again; touch done']);
    expect((await (next.launched as LaunchedProcess).exit).exitCode).toBe(0);
    await (next.launched as LaunchedProcess).closed;
    expect(next.output.stdout).toBe('again\n');
    expect(existsSync(join(cwd, 'done'))).toBe(true);
    expect(launcher.pid).not.toBe(first);
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testFolder } from '../src/index.js';
import { deadPid } from './support/dead-pid.js';

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** vitest over fixtures/temp-run with `system` as the system temp folder, in a process group of its own. */
function run(
  system: string,
  report: string,
  env: Record<string, string> = {},
): ChildProcess & { output: string[] } {
  const child = spawn(process.execPath, [vitest, 'run', '--root', 'test/fixtures/temp-run'], {
    env: { ...process.env, TMPDIR: system, LEAVES_REPORT: report, ...env },
    detached: true,
  });
  const output: string[] = [];
  child.stdout.on('data', (chunk) => output.push(String(chunk)));
  child.stderr.on('data', (chunk) => output.push(String(chunk)));
  return Object.assign(child, { output });
}

interface Left {
  tmpdir: string;
  own: string;
  closed: string;
  child: string;
}

describe("a test run's temp folder (vitest.shared.ts)", () => {
  it('takes what the tests leave, and runs killed before their end left, with it at the end', async () => {
    const system = await testFolder('longhaul-temp-run-');
    const report = join(await testFolder('longhaul-temp-report-'), 'left.json');
    // A run folder whose vitest was killed, and one of a vitest still running (this one's).
    const killed = join(system, `longhaul-vitest-${deadPid()}`);
    await mkdir(killed);
    await writeFile(join(killed, 'left.txt'), 'left\n');
    const running = `longhaul-vitest-${process.pid}`;
    await mkdir(join(system, running));

    const child = run(system, report);
    const [code] = await once(child, 'exit');
    expect(code, child.output.join('')).toBe(0);
    const left: Left = JSON.parse(await readFile(report, 'utf8'));
    expect(left.tmpdir).toBe(join(system, `longhaul-vitest-${child.pid}`));
    for (const dir of [left.own, left.closed, left.child]) expect(dirname(dir)).toBe(left.tmpdir);
    expect(await readdir(system)).toEqual([running]);
  });

  it('goes when the run is interrupted (Ctrl-C)', async () => {
    const system = await testFolder('longhaul-temp-run-');
    const report = join(await testFolder('longhaul-temp-report-'), 'left.json');
    const child = run(system, report, { LEAVES_HANG: '1' });
    const exited = once(child, 'exit');
    try {
      // The test has left its folders and waits.
      while (!existsSync(report) && child.exitCode === null)
        await new Promise((wake) => setTimeout(wake, 100));
      expect(existsSync(report), child.output.join('')).toBe(true);
      const left: Left = JSON.parse(await readFile(report, 'utf8'));
      expect(statSync(left.own).isDirectory()).toBe(true);
      process.kill(-child.pid!, 'SIGINT');
      await exited;
      expect(await readdir(system)).toEqual([]);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group has ended.
      }
    }
  });
});

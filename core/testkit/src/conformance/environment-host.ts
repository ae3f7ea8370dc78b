import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { Sandbox } from '@longhaul/core';
import { expect } from 'vitest';
import type { Check } from './checks.js';
import type { EnvironmentContext } from './environment.js';
import { growthOver, within, withSandbox } from './environment-support.js';

/**
 * What an agent's commands must not be able to do to the machine that runs them, whatever the
 * environment: hold the host's root, write its kernel settings, or leave the cgroup they were put
 * in. Run by `describeEnvironment` with `host: true`. The writes they try are harmless if they
 * succeed: a setting is written with the value it already has, and a trigger file is only opened.
 */
export const hostChecks: Check<EnvironmentContext>[] = [
  {
    name: "commands cannot write the host's kernel settings (/proc/sys, /proc/sysrq-trigger)",
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const settings = ['/proc/sys/kernel/core_pattern', '/proc/sys/vm/swappiness'];
        const before = await Promise.all(settings.map((path) => readFile(path, 'utf8').catch(() => '')));
        // The current value is read inside and written back: a write that goes through changes nothing.
        const script = [
          `for f in ${settings.join(' ')}; do`,
          '  [ -r "$f" ] || continue',
          '  v=$(cat "$f")',
          `  if printf '%s\\n' "$v" 2>/dev/null > "$f"; then echo "wrote $f"; fi`,
          'done',
          // Opening it writes nothing (a byte written would be a command to the kernel).
          'if ( : > /proc/sysrq-trigger ) 2>/dev/null; then echo "opened /proc/sysrq-trigger for writing"; fi',
          'echo checked',
        ].join('\n');
        const result = await sandbox.exec(['sh', '-c', script]);
        expect(result.stdout, result.stderr).toContain('checked');
        expect(result.stdout.replace('checked\n', ''), 'a command wrote a host kernel setting').toBe('');
        const after = await Promise.all(settings.map((path) => readFile(path, 'utf8').catch(() => '')));
        expect(after).toEqual(before);
      }),
  },
  {
    name: "commands run as a user that is not root on the host: they do not own the host's system files",
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        // Host root owns /usr/bin in every environment. Seen from a user namespace that does not map
        // it, the owner is the overflow uid; from one that maps the command's uid to host root (as a
        // bwrap started by root does), it is the command's own uid. So the command is host root
        // exactly when it owns /usr/bin, however deep its namespaces nest.
        const script =
          'echo "uid=$(id -u) owner=$(stat -c %u /usr/bin) map=$(cat /proc/self/uid_map | tr -s " " | tr "\\n" ";")"';
        const result = await sandbox.exec(['sh', '-c', script]);
        expect(result.exitCode, result.stderr).toBe(0);
        const [, uid, owner] = /uid=(\d+) owner=(\d+)/.exec(result.stdout) ?? [];
        expect(uid, `no uid and owner in: ${result.stdout}`).toBeDefined();
        expect(uid, `an agent's command runs as root of the host (${result.stdout.trim()})`).not.toBe(owner);
      }),
  },
  {
    name: 'a command cannot move itself out of its cgroup, and what it leaves running ends with it',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        // Every cgroup v2 hierarchy the command sees: a write of its pid to the top's cgroup.procs
        // would take it (and all it starts) out of the cgroup its sandbox ends it by.
        const script = [
          'moved=',
          'for d in $(awk \'{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }\' /proc/self/mountinfo); do',
          '  if echo $$ 2>/dev/null > "$d/cgroup.procs"; then moved="$moved $d"; fi',
          'done',
          'echo "moved:$moved"',
          "setsid -f sh -c 'while :; do echo x >> escaped.log; sleep 0.1; done' > /dev/null 2>&1",
          'sleep 1',
        ].join('\n');
        const result = await within(
          120_000,
          'exec that leaves its cgroup',
          sandbox.exec(['sh', '-c', script]),
        );
        expect(result.stdout, result.stderr).toMatch(/^moved:/m);
        expect(result.stdout.trim(), 'a command moved itself into a cgroup at the top').toBe('moved:');
        expect(await growthOver(sandbox, 2_500), 'the writer outlived its command').toEqual({});
      }),
  },
];

/** The limits the environment under test was made with (each check runs only with its limit). */
export interface EnvironmentLimits {
  /** Most processes a sandbox may hold. */
  pids?: number;
  /** Memory of a sandbox's processes together, in bytes (swap included). */
  memoryBytes?: number;
  /** What a sandbox's files may take on disk, in bytes. */
  diskBytes?: number;
}

/** A Python script that forks `count` sleeping children, or as many as it can, and prints how many. */
const forkBurst = (count: number) => `import os, time
pids = []
for _ in range(${count}):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(120)
        os._exit(0)
    pids.append(pid)
print(len(pids), flush=True)
for pid in pids:
    os.kill(pid, 9)
for pid in pids:
    os.waitpid(pid, 0)`;

async function expectUsable(sandbox: Sandbox, after: string): Promise<void> {
  const result = await sandbox.exec(['echo', 'alive']);
  expect(result.stdout, `the sandbox does not run commands after ${after}`).toBe('alive\n');
}

/**
 * The limits of a sandbox, like a container's: a burst of processes stops at the pids limit, an
 * allocation past the memory limit is killed and said to be (`oomKilled`), a command filling the
 * disk past its limit is stopped and said to be (`diskLimitHit`), files its writers removed but
 * hold open included; the sandbox goes on after each.
 * Run by `describeEnvironment` with `limits`, each check only with its own limit given.
 */
export function limitChecks(limits: EnvironmentLimits): Check<EnvironmentContext>[] {
  const checks: Check<EnvironmentContext>[] = [];
  const { pids, memoryBytes, diskBytes } = limits;
  if (pids !== undefined)
    checks.push({
      name: 'a burst of 2,000 processes stops at the pids limit, and the sandbox goes on',
      run: (context) =>
        withSandbox(context, async (sandbox) => {
          const burst = await within(
            180_000,
            'a burst of 2,000 processes',
            sandbox.exec(['python3', '-c', forkBurst(2_000)], { timeoutMs: 150_000 }),
          );
          const started = Number(burst.stdout.trim());
          expect(Number.isInteger(started) && burst.stdout.trim() !== '', burst.stderr).toBe(true);
          expect(started, `${started} processes started under a limit of ${pids}`).toBeLessThan(pids);
          await expectUsable(sandbox, 'a burst of processes');
        }),
    });
  if (memoryBytes !== undefined)
    checks.push({
      name: 'an allocation past the memory limit is killed and reported as oomKilled, and the sandbox goes on',
      run: (context) =>
        withSandbox(context, async (sandbox) => {
          // Bytes that are written, so they are really taken: twice the limit.
          const hog = `x = b"\\x01" * ${2 * memoryBytes}; print("survived", len(x))`;
          const result = await within(
            180_000,
            'an allocation past the memory limit',
            sandbox.exec(['python3', '-c', hog], { timeoutMs: 150_000 }),
          );
          expect(result.stdout, 'the allocation went through').not.toContain('survived');
          expect(result.timedOut).toBe(false);
          expect(result.exitCode).not.toBe(0);
          expect(result.oomKilled, `not reported as killed for memory: ${result.stderr}`).toBe(true);
          const small = await sandbox.exec(['python3', '-c', 'x = b"\\x01" * (4 << 20); print("fine")']);
          expect(small).toMatchObject({ exitCode: 0, stdout: 'fine\n' });
          expect(small.oomKilled).toBeFalsy();
        }),
    });
  if (diskBytes !== undefined)
    checks.push({
      name: 'a command writing past the disk limit is stopped and reported as diskLimitHit, and the sandbox goes on',
      run: (context) =>
        withSandbox(context, async (sandbox) => {
          // One file twice the limit, then many smaller ones without end: neither may finish.
          const big = await within(
            180_000,
            'a file twice the disk limit',
            sandbox.exec(['sh', '-c', `head -c ${2 * diskBytes} /dev/zero > big.bin`], {
              timeoutMs: 150_000,
            }),
          );
          expect(big.timedOut).toBe(false);
          expect(big.exitCode).not.toBe(0);
          expect(big.diskLimitHit, `not reported as past the disk limit: ${big.stderr}`).toBe(true);
          const size = (await sandbox.list('.')).find((entry) => entry.path === 'big.bin')?.size ?? 0;
          expect(size, 'the file grew past the disk limit').toBeLessThanOrEqual(diskBytes);
          await sandbox.remove('big.bin');
          const chunk = Math.max(1, Math.floor(diskBytes / 8));
          const many = await within(
            180_000,
            'files without end',
            sandbox.exec(
              [
                'sh',
                '-c',
                `i=0; while :; do head -c ${chunk} /dev/zero > hog-$i.bin || exit 1; i=$((i + 1)); done`,
              ],
              { timeoutMs: 150_000 },
            ),
          );
          expect(many.timedOut, 'the disk hog ran until its timeout').toBe(false);
          expect(many.exitCode).not.toBe(0);
          expect(many.diskLimitHit, `not reported as past the disk limit: ${many.stderr}`).toBe(true);
          await sandbox.exec(['sh', '-c', 'rm -f hog-*.bin']);
          // The limit counts what is there: once the files are gone, writing works again.
          await delay(100);
          const again = await sandbox.exec(['sh', '-c', 'head -c 1024 /dev/zero > small.bin && echo wrote']);
          expect(again).toMatchObject({ exitCode: 0, stdout: 'wrote\n' });
          expect(again.diskLimitHit).toBeFalsy();
        }),
    });
  if (diskBytes !== undefined)
    checks.push({
      name: 'writers of removed files they hold open are stopped at the disk limit, and the sandbox goes on',
      run: (context) =>
        withSandbox(context, async (sandbox) => {
          // Files removed while their writers hold them open still take the disk: four writers,
          // each of almost the limit into a file it removed at once, hold them until stopped.
          const each = Math.floor(diskBytes * 0.9);
          const held = await within(
            180_000,
            'writers of removed files',
            sandbox.exec(
              [
                'sh',
                '-c',
                `for i in 1 2 3 4; do ( exec 3>held-$i; rm held-$i; head -c ${each} /dev/zero >&3; sleep 30 ) & done; wait; echo finished`,
              ],
              { timeoutMs: 150_000 },
            ),
          );
          expect(held.stdout, 'writers of removed files went on past the disk limit').not.toContain(
            'finished',
          );
          expect(held.timedOut, 'the writers of removed files ran until their timeout').toBe(false);
          expect(held.diskLimitHit, `not reported as past the disk limit: ${held.stderr}`).toBe(true);
          await expectUsable(sandbox, 'writers of removed files were stopped');
        }),
    });
  return checks;
}

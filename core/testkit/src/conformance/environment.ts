import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import {
  defaultMaxFileSize,
  type Environment,
  isFileTooLarge,
  parseSize,
  type Sandbox,
  type SandboxSpec,
  type SkippedFile,
  type WorkspaceFile,
} from '@longhaul/core';
import { expect } from 'vitest';
import { FakeSnapshotStore } from '../fakes/snapshot-store.js';
import { type Check, describeChecks, expectClassified } from './checks.js';
import { type EnvironmentLimits, hostChecks, limitChecks } from './environment-host.js';
import { growthOver, sizes, within, withSandbox } from './environment-support.js';
import { judgeChecks } from './judge-area.js';
import { linkChecks } from './workspace-links.js';

export interface EnvironmentContext {
  environment: Environment;
  /** A spec whose task seed holds `seed.txt`, `bin/run.sh` (mode 755) and `sub/dir/nested.txt`. */
  spec: SandboxSpec;
  /** The environment's `maxFileSize` in bytes: pulls leave out larger files. */
  maxFileBytes: number;
  /** Reads and writes each in the swap race of `linkChecks` (default 2,000). */
  raceOps?: number;
  /** The store the environment's sandboxes snapshot to, when the suite made it (it counts what it is handed). */
  snapshots?: FakeSnapshotStore;
}

const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');

export const environmentChecks: Check<EnvironmentContext>[] = [
  {
    name: "opens with the task's seed in the workspace",
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        expect(text(await sandbox.readFile('seed.txt'))).toBe('seed\n');
        expect(text(await sandbox.readFile('sub/dir/nested.txt'))).toBe('nested\n');
        const script = (await sandbox.list('bin')).find((e) => e.path === 'bin/run.sh');
        expect(script?.type).toBe('file');
        expect((script?.mode ?? 0) & 0o777).toBe(0o755);
      }),
  },
  {
    name: 'exec runs argv without a shell and reports exit code, stdout and stderr',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const result = await sandbox.exec(['sh', '-c', 'echo out; echo err >&2; exit 3']);
        expect(result).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false });
        expect((await sandbox.exec(['printf', '%s|', 'a b', '$HOME'])).stdout).toBe('a b|$HOME|');
        expect((await sandbox.exec(['sh', 'bin/run.sh'])).stdout).toBe('run\n');
      }),
  },
  {
    name: 'exec honours cwd, env and stdin',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        expect((await sandbox.exec(['pwd'], { cwd: 'sub/dir' })).stdout.trim()).toMatch(/\/sub\/dir$/);
        expect((await sandbox.exec(['pwd'])).stdout.trim()).toBe(sandbox.workspace);
        const env = await sandbox.exec(['sh', '-c', 'printf %s "$GREETING"'], {
          env: { GREETING: 'hi there' },
        });
        expect(env.stdout).toBe('hi there');
        expect((await sandbox.exec(['cat'], { stdin: 'from stdin' })).stdout).toBe('from stdin');
        expect((await sandbox.exec(['cat'], { stdin: new Uint8Array([104, 105]) })).stdout).toBe('hi');
      }),
  },
  {
    name: "commands see none of the host's environment variables and get a writable HOME",
    run: async (context) => {
      // A name of its own per check: checks run concurrently, and one that deletes a shared name
      // would hide another's leak.
      const name = `LONGHAUL_CONFORMANCE_SECRET_${randomBytes(6).toString('hex')}`;
      process.env[name] = 'must-not-leak';
      try {
        await withSandbox(context, async (sandbox) => {
          const result = await sandbox.exec(['env']);
          expect(result.exitCode).toBe(0);
          expect(result.stdout).not.toContain('must-not-leak');
          expect((await sandbox.exec(['sh', '-c', 'test -n "$HOME" && test -w "$HOME"'])).exitCode).toBe(0);
        });
      } finally {
        delete process.env[name];
      }
    },
  },
  {
    name: 'a program that does not exist gives a non-zero exit code, not a rejection',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const result = await sandbox.exec(['longhaul-no-such-program']);
        expect(result.exitCode === null || result.exitCode === 0).toBe(false);
      }),
  },
  {
    name: 'exec past its timeout kills the whole process tree',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const started = Date.now();
        const result = await within(
          10_000,
          'exec with timeoutMs 300',
          sandbox.exec(['sh', '-c', '(sleep 2; echo late > late.txt) & sleep 30'], { timeoutMs: 300 }),
        );
        expect(result.timedOut).toBe(true);
        expect(result.exitCode).not.toBe(0);
        expect(Date.now() - started).toBeLessThan(10_000);
        await delay(2_500);
        const late = await sandbox.exec(['test', '-e', 'late.txt']);
        expect(late.exitCode, 'a grandchild outlived the timeout and wrote late.txt').not.toBe(0);
      }),
  },
  {
    name: 'exec ends promptly when its signal aborts',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort('cancelled'), 200);
        const result = await within(
          10_000,
          'exec after abort',
          sandbox.exec(['sleep', '30'], { signal: controller.signal }),
        );
        expect(result.exitCode).not.toBe(0);
      }),
  },
  {
    name: 'exec keeps output up to maxOutputBytes and marks it truncated',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const result = await sandbox.exec(['sh', '-c', 'head -c 100000 /dev/zero | tr "\\0" a'], {
          maxOutputBytes: 1000,
        });
        expect(result.exitCode).toBe(0);
        expect(result.stdout.length).toBeLessThanOrEqual(1000);
        expect(result.stdout.length).toBeGreaterThan(0);
        expect(result.truncated).toBe(true);
      }),
  },
  {
    name: 'start runs a long-running process until it is killed',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const server = await sandbox.start(['sh', '-c', 'echo ready; exec sleep 30']);
        const deadline = Date.now() + 5_000;
        while (!server.output().stdout.includes('ready') && Date.now() < deadline) await delay(50);
        expect(server.output().stdout).toContain('ready');
        await within(10_000, 'kill() of a started process', server.kill());
        const result = await within(5_000, 'wait() after kill()', server.wait());
        expect(result.exitCode).not.toBe(0);
        const done = await sandbox.start(['sh', '-c', 'echo bye; exit 4']);
        expect(await within(5_000, 'wait() of a process that exits', done.wait())).toMatchObject({
          exitCode: 4,
          stdout: 'bye\n',
        });
      }),
  },
  {
    name: 'files can be written, read, listed and removed',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        await sandbox.writeFile('a/b/c.txt', 'hi', { mode: 0o600 });
        const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
        await sandbox.writeFile('a/bytes.bin', bytes);
        expect(text(await sandbox.readFile('a/b/c.txt'))).toBe('hi');
        expect(Buffer.from(await sandbox.readFile('a/bytes.bin')).equals(Buffer.from(bytes))).toBe(true);
        expect(text(await sandbox.readFile(`${sandbox.workspace}/a/b/c.txt`))).toBe('hi');
        const top = await sandbox.list('a');
        expect(top.map((e) => [e.path, e.type])).toEqual([
          ['a/b', 'dir'],
          ['a/bytes.bin', 'file'],
        ]);
        const all = await sandbox.list('a', { recursive: true });
        const file = all.find((e) => e.path === 'a/b/c.txt');
        expect(file).toMatchObject({ type: 'file', size: 2 });
        expect((file?.mode ?? 0) & 0o777).toBe(0o600);
        const root = (await sandbox.list()).map((e) => e.path);
        expect(root).toEqual(expect.arrayContaining(['a', 'seed.txt', 'sub']));
        await sandbox.remove('a/b/c.txt');
        await expect(sandbox.readFile('a/b/c.txt')).rejects.toThrow();
        await sandbox.remove('a');
        expect((await sandbox.list()).map((e) => e.path)).not.toContain('a');
      }),
  },
  {
    name: "what writeFile, push and restore make is the agent's to change",
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        await sandbox.writeFile('made/deep/written.txt', 'w');
        const ref = await sandbox.snapshot();
        await sandbox.remove('made');
        await sandbox.restore(ref);
        await sandbox.push([
          ...(await sandbox.pull()),
          { path: 'pushed/p.txt', mode: 0o644, data: Buffer.from('p') },
        ]);
        // Owned by the agent (so it can chmod and chown them as it would its own), and writable.
        const owned = ['made', 'made/deep', 'made/deep/written.txt', 'pushed', 'pushed/p.txt']
          .map((path) => `{ test -O ${path} || { echo "${path} is not the agent's" >&2; exit 1; }; }`)
          .join(' && ');
        const script = `${owned} && echo more >> made/deep/written.txt && touch made/deep/new.txt made/new.txt pushed/new.txt && echo more >> pushed/p.txt`;
        const result = await sandbox.exec(['sh', '-c', script]);
        expect(result.exitCode, result.stderr).toBe(0);
      }),
  },
  {
    name: 'paths outside the workspace are refused',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const outside = join(tmpdir(), `longhaul-escape-${process.pid}-${Date.now()}`);
        // A sandbox that lets the write through must not leave litter on the host.
        await expect(
          sandbox.writeFile(outside, 'x').finally(() => rm(outside, { force: true })),
        ).rejects.toThrow();
        await expect(sandbox.writeFile('../escape.txt', 'x')).rejects.toThrow();
        await expect(sandbox.readFile('../../etc/passwd')).rejects.toThrow();
        await expect(sandbox.readFile('/etc/passwd')).rejects.toThrow();
        await expect(sandbox.list('..')).rejects.toThrow();
        await expect(sandbox.remove('../seed-sibling')).rejects.toThrow();
        await expect(sandbox.exec(['pwd'], { cwd: '..' })).rejects.toThrow();
        expect((await sandbox.exec(['test', '-e', outside])).exitCode).not.toBe(0);
      }),
  },
  {
    name: 'snapshot and restore round-trip the workspace, with deletions and modes',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const before = await sandbox.snapshot();
        expect(typeof before).toBe('string');
        expect(await sandbox.snapshot(), 'an unchanged workspace must give the same ref').toBe(before);
        await sandbox.writeFile('new/file.txt', 'new');
        await sandbox.writeFile('seed.txt', 'changed');
        await sandbox.remove('sub/dir/nested.txt');
        await sandbox.writeFile('bin/run.sh', '#!/bin/sh\necho run\n', { mode: 0o644 });
        const after = await sandbox.snapshot();
        expect(after).not.toBe(before);
        await sandbox.restore(before);
        await expect(sandbox.readFile('new/file.txt')).rejects.toThrow();
        expect(text(await sandbox.readFile('seed.txt'))).toBe('seed\n');
        expect(text(await sandbox.readFile('sub/dir/nested.txt'))).toBe('nested\n');
        const script = (await sandbox.list('bin')).find((e) => e.path === 'bin/run.sh');
        expect((script?.mode ?? 0) & 0o777).toBe(0o755);
        expect(await sandbox.snapshot()).toBe(before);
        await sandbox.restore(after);
        expect(text(await sandbox.readFile('new/file.txt'))).toBe('new');
        await expect(sandbox.readFile('sub/dir/nested.txt')).rejects.toThrow();
      }),
  },
  {
    name: 'a sandbox opened from a snapshot starts with that workspace instead of the seed',
    run: (context) =>
      withSandbox(context, async (first) => {
        await first.writeFile('made.txt', 'made');
        await first.remove('seed.txt');
        const ref = await first.snapshot();
        await withSandbox(
          context,
          async (second) => {
            expect(text(await second.readFile('made.txt'))).toBe('made');
            await expect(second.readFile('seed.txt')).rejects.toThrow();
          },
          { from: ref, purpose: 'scorer' },
        );
      }),
  },
  {
    name: 'push makes the workspace hold exactly the given files, and pull returns them',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const original = await sandbox.pull();
        expect(original.map((f) => f.path).sort()).toEqual(['bin/run.sh', 'seed.txt', 'sub/dir/nested.txt']);
        await sandbox.push([{ path: 'only/one.sh', mode: 0o755, data: Buffer.from('echo one\n') }]);
        const pulled = await sandbox.pull();
        expect(pulled.map((f) => [f.path, f.mode & 0o777, text(f.data)])).toEqual([
          ['only/one.sh', 0o755, 'echo one\n'],
        ]);
        expect((await sandbox.exec(['sh', '-c', 'ls -A'])).stdout.trim()).toBe('only');
        await sandbox.push(original);
        const summary = (files: WorkspaceFile[]) =>
          files
            .map((f) => [f.path, f.mode & 0o777, text(f.data)])
            .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
        expect(summary(await sandbox.pull())).toEqual(summary(original));
      }),
  },
  {
    name: 'pull leaves out files over maxFileSize unread and reports them; files up to it round-trip byte for byte',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const limit = context.maxFileBytes;
        // Every byte value, so that text decoding anywhere on the way would show.
        const atLimit = new Uint8Array(limit);
        for (let i = 0; i < limit; i++) atLimit[i] = (i * 7 + (i >> 8)) & 0xff;
        await sandbox.writeFile('big/at-limit.bin', atLimit);
        // The agent makes the large file inside the sandbox, as it would.
        const made = await sandbox.exec(['sh', '-c', `head -c ${limit + 1} /dev/zero > big/over.bin`]);
        expect(made.exitCode).toBe(0);
        const skipped: SkippedFile[] = [];
        const files = await sandbox.pull({ onSkipped: (file) => skipped.push(file) });
        expect(skipped).toEqual([{ path: 'big/over.bin', size: limit + 1 }]);
        expect(files.map((f) => f.path)).not.toContain('big/over.bin');
        const pulled = files.find((f) => f.path === 'big/at-limit.bin');
        expect(pulled && Buffer.from(pulled.data).equals(Buffer.from(atLimit))).toBe(true);
        const ref = await sandbox.snapshot();
        await withSandbox(
          context,
          async (second) => {
            expect(Buffer.from(await second.readFile('big/at-limit.bin')).equals(Buffer.from(atLimit))).toBe(
              true,
            );
            await expect(second.readFile('big/over.bin')).rejects.toThrow();
          },
          { from: ref, purpose: 'scorer' },
        );
      }),
  },
  {
    name: 'readFile with maxBytes refuses a larger file unread, giving its size, and reads one up to it',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        // The agent makes the file inside the sandbox; larger than maxFileSize too, as a log can be.
        const size = context.maxFileBytes + 4096;
        const made = await sandbox.exec(['sh', '-c', `head -c ${size} /dev/zero > huge.bin`]);
        expect(made.exitCode).toBe(0);
        const refused = await sandbox
          .readFile('huge.bin', { maxBytes: 1024 })
          .catch((error: unknown) => error);
        expect(isFileTooLarge(refused)).toBe(true);
        expect(refused).toMatchObject({ size, maxBytes: 1024 });
        await sandbox.writeFile('small.txt', 'x'.repeat(1024));
        expect((await sandbox.readFile('small.txt', { maxBytes: 1024 })).length).toBe(1024);
      }),
  },
  {
    name: 'pull with only and maxFileBytes reads just the entries asked for, each once, and no folder refused',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        await sandbox.writeFile('src/a.py', 'a\n');
        await sandbox.writeFile('src/big.py', 'b'.repeat(2048));
        await sandbox.writeFile('node_modules/pkg/index.js', 'x\n');
        await sandbox.writeFile('notes.md', 'n\n');
        const asked: string[] = [];
        const skipped: SkippedFile[] = [];
        const files = await sandbox.pull({
          maxFileBytes: 1024,
          onSkipped: (file) => skipped.push(file),
          only: (entry) => {
            asked.push(entry.path);
            return entry.path !== 'node_modules' && entry.path !== 'notes.md';
          },
        });
        const paths = files.map((f) => f.path);
        expect(paths).toContain('src/a.py');
        expect(paths).toContain('seed.txt');
        expect(paths).not.toContain('notes.md');
        expect(paths).not.toContain('node_modules/pkg/index.js');
        expect(paths).not.toContain('src/big.py');
        expect(skipped).toContainEqual({ path: 'src/big.py', size: 2048 });
        expect(asked.filter((path) => path.startsWith('node_modules/'))).toEqual([]);
        expect(asked.length).toBe(new Set(asked).size);
      }),
  },
  {
    name: 'snapshot and restore stream files through the store: no file handed over whole, no snapshot read whole',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const use = context.snapshots?.use;
        expect(
          use,
          'the environment must snapshot to the store describeEnvironment gives its factory',
        ).toBeDefined();
        if (!use) return;
        const size = Math.min(context.maxFileBytes, 3 * 1024 * 1024);
        const made = await sandbox.exec(['sh', '-c', `head -c ${size} /dev/urandom > stream.bin`]);
        expect(made.exitCode, made.stderr).toBe(0);
        const bytes = await sandbox.readFile('stream.bin');
        Object.assign(use, { largestPiece: 0, gets: 0, puts: 0 });
        const ref = await sandbox.snapshot();
        expect(await context.snapshots!.entries(ref).then((e) => e.map((f) => f.path))).toContain(
          'stream.bin',
        );
        expect(use.puts, 'snapshot() stored the workspace whole (SnapshotStore.put)').toBe(0);
        // A file over a chunk reaches the store in chunks (SnapshotStore.writer with a stream).
        if (size > 1024 * 1024) expect(use.largestPiece).toBeLessThanOrEqual(1024 * 1024);
        await sandbox.remove('stream.bin');
        await sandbox.restore(ref);
        expect(Buffer.from(await sandbox.readFile('stream.bin')).equals(Buffer.from(bytes))).toBe(true);
        await withSandbox(
          context,
          async (second) => {
            expect(Buffer.from(await second.readFile('stream.bin')).equals(Buffer.from(bytes))).toBe(true);
          },
          { from: ref, purpose: 'scorer' },
        );
        expect(use.gets, 'restore() read the snapshot whole (SnapshotStore.get)').toBe(0);
      }),
  },
  {
    name: 'expose gives an http URL',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        expect(await sandbox.expose(8080)).toMatch(/^https?:\/\/[^/]+:\d+$/);
      }),
  },
  {
    name: 'close is idempotent and every method afterwards rejects with class sandbox',
    run: async (context) => {
      const sandbox = await context.environment.open(context.spec);
      await sandbox.close();
      await sandbox.close();
      await expectClassified('exec after close', sandbox.exec(['true']), 'sandbox');
      await expectClassified('start after close', sandbox.start(['true']), 'sandbox');
      await expectClassified('readFile after close', sandbox.readFile('seed.txt'), 'sandbox');
      await expectClassified('writeFile after close', sandbox.writeFile('x', 'x'), 'sandbox');
      await expectClassified('remove after close', sandbox.remove('seed.txt'), 'sandbox');
      await expectClassified('list after close', sandbox.list(), 'sandbox');
      await expectClassified('pull after close', sandbox.pull(), 'sandbox');
      await expectClassified('push after close', sandbox.push([]), 'sandbox');
      await expectClassified('snapshot after close', sandbox.snapshot(), 'sandbox');
      await expectClassified('restore after close', sandbox.restore('x'), 'sandbox');
      await expectClassified('expose after close', sandbox.expose(8080), 'sandbox');
    },
  },
];

/** A shell loop that appends to `file` in the workspace ten times a second. */
const writer = (file: string) => `while :; do echo x >> ${file}; sleep 0.1; done`;

/** Waits until `file` grows, so that a check that it stopped means something. */
async function untilGrowing(sandbox: Sandbox, file: string, ms = 20_000): Promise<void> {
  let last: number | undefined;
  for (const deadline = Date.now() + ms; Date.now() < deadline; await delay(200)) {
    const size = (await sizes(sandbox))[file];
    if (last !== undefined && size !== undefined && size > last) return;
    last = size;
  }
  throw new Error(`${file} did not grow within ${ms} ms: the process writing it is not running`);
}

/**
 * Process containment: nothing a command starts outlives it unless it was started in the
 * background, and background processes end at `sweep()`. Run by `describeEnvironment` with
 * `containment: true`.
 */
export const containmentChecks: Check<EnvironmentContext>[] = [
  {
    name: 'what a command detaches (setsid, double fork, nohup) is gone when the command returns',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const script = [
          `setsid -f sh -c '${writer('setsid.log')}' > /dev/null 2>&1`,
          `( sh -c '${writer('fork.log')}' > /dev/null 2>&1 & )`,
          `nohup sh -c '${writer('nohup.log')}' > /dev/null 2>&1 &`,
          'sleep 1',
        ].join('\n');
        const result = await within(
          120_000,
          'exec that detaches writers',
          sandbox.exec(['sh', '-c', script]),
        );
        expect(result.exitCode, result.stderr).toBe(0);
        const written = await sizes(sandbox);
        for (const file of ['setsid.log', 'fork.log', 'nohup.log'])
          expect(written[file], `${file} was never written`).toBeGreaterThan(0);
        expect(await growthOver(sandbox, 2_500), 'a detached writer outlived its command').toEqual({});
      }),
  },
  {
    name: 'a started process runs until sweep(), which ends it and leaves the sandbox usable',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        expect(typeof sandbox.sweep, 'the sandbox has no sweep()').toBe('function');
        const background = await sandbox.start(['sh', '-c', writer('background.log')]);
        await untilGrowing(sandbox, 'background.log');
        expect((await sandbox.exec(['true'])).exitCode).toBe(0);
        await untilGrowing(sandbox, 'background.log');
        await within(120_000, 'sweep()', sandbox.sweep!());
        await within(10_000, 'wait() of a swept process', background.wait());
        expect(await growthOver(sandbox, 2_500), 'the started process outlived sweep()').toEqual({});
        expect((await sandbox.exec(['echo', 'ok'])).stdout).toBe('ok\n');
      }),
  },
];

/** A seed directory for the suite, and a spec that starts from it. */
export async function environmentContext(
  environment: Environment,
  spec: Partial<SandboxSpec> = {},
  maxFileBytes = parseSize(defaultMaxFileSize),
  snapshots?: FakeSnapshotStore,
): Promise<EnvironmentContext & { dispose(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'longhaul-conformance-'));
  const seed = join(root, 'seed');
  await mkdir(join(seed, 'bin'), { recursive: true });
  await mkdir(join(seed, 'sub', 'dir'), { recursive: true });
  await writeFile(join(seed, 'seed.txt'), 'seed\n');
  await writeFile(join(seed, 'bin', 'run.sh'), '#!/bin/sh\necho run\n');
  await chmod(join(seed, 'bin', 'run.sh'), 0o755);
  await writeFile(join(seed, 'sub', 'dir', 'nested.txt'), 'nested\n');
  return {
    environment,
    maxFileBytes,
    ...(snapshots ? { snapshots } : {}),
    spec: {
      // This process's own: two copies of a suite on one host must not share a run.
      runId: `conformance-${process.pid}`,
      trialId: 'conformance.trial.r1',
      purpose: 'agent',
      task: { id: 'conformance', root, seed },
      needs: {},
      ...spec,
    },
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}

export interface DescribeEnvironmentOptions {
  /** Fields merged into the spec every check opens (needs, purpose...). */
  spec?: Partial<SandboxSpec>;
  /** The `maxFileSize` the factory's environment has, in bytes (default: the default, 32m). */
  maxFileBytes?: number;
  timeoutMs?: number;
  /** Also run `containmentChecks` (detached processes end with their command; `sweep()`). */
  containment?: boolean;
  /** Reads and writes each in the swap race of `linkChecks` (default 2,000). */
  raceOps?: number;
  /** Also run `hostChecks`: commands hold no host privilege and stay in their cgroup. */
  host?: boolean;
  /** The limits the factory's environment was made with: `limitChecks` tries each one given. */
  limits?: EnvironmentLimits;
}

/**
 * The environment conformance suite. Call it at the top level of a test file with a factory that
 * gives an environment whose sandboxes share the snapshot store it is given (the suite counts what
 * the store is handed, to check that snapshots and restores stream).
 */
export function describeEnvironment(
  name: string,
  factory: (snapshots: FakeSnapshotStore) => Environment | Promise<Environment>,
  options: DescribeEnvironmentOptions = {},
): void {
  describeChecks<EnvironmentContext & { dispose(): Promise<void> }>(
    `environment conformance: ${name}`,
    [
      ...environmentChecks,
      ...judgeChecks,
      ...(options.containment ? containmentChecks : []),
      ...linkChecks,
      ...(options.host ? hostChecks : []),
      ...limitChecks(options.limits ?? {}),
    ],
    async () => {
      const snapshots = new FakeSnapshotStore();
      const environment = await factory(snapshots);
      return {
        ...(await environmentContext(environment, options.spec, options.maxFileBytes, snapshots)),
        raceOps: options.raceOps ?? 2_000,
      };
    },
    (context) => context.dispose(),
    options.timeoutMs,
  );
}

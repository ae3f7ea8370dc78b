import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxSpec } from '@longhaul/core';
import { FakeSnapshotStore } from '@longhaul/testkit';
import { DockerEnvironment, type DockerOptions, type DockerSandbox, dockerOptions } from '../src/index.js';

export function environment(options: Partial<DockerOptions> = {}): DockerEnvironment {
  return new DockerEnvironment(dockerOptions.parse(options), new FakeSnapshotStore());
}

/**
 * The run id a test names `name`, made this process's own: two copies of the suite on one Docker
 * daemon must not share a run's network or see each other's containers.
 */
export function runOf(name: string): string {
  return `${name}-${process.pid}`;
}

export function spec(name: string, overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  const runId = runOf(name);
  return {
    runId,
    trialId: `${runId}.trial`,
    purpose: 'agent',
    task: { id: 'docker-test', root: tmpdir() },
    needs: {},
    ...overrides,
  };
}

/** Opens a sandbox for the duration of `use` and always closes it. */
export async function withSandbox<T>(
  env: DockerEnvironment,
  sandboxSpec: SandboxSpec,
  use: (sandbox: DockerSandbox) => Promise<T>,
): Promise<T> {
  const sandbox = await env.open(sandboxSpec);
  try {
    return await use(sandbox);
  } finally {
    await sandbox.close();
  }
}

export async function withTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-docker-test-'));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A Python one-liner that tries one TCP connection and prints `open` or the error's name. A refusal
 * prints ConnectionRefusedError at once; only a connection that hangs waits for the timeout (and
 * prints TimeoutError), so the timeout is long enough for a loaded machine's slowest answer.
 */
export function connectProbe(host: string, port: number, timeoutS = 30): string[] {
  return [
    'python3',
    '-c',
    `import socket
s = socket.socket(); s.settimeout(${timeoutS})
try:
    s.connect((${JSON.stringify(host)}, ${port})); print("open", s.recv(16).decode())
except Exception as e:
    print(type(e).__name__)`,
  ];
}

/** A TCP server on the host that sends `greeting` to whoever connects. */
export function serve(host: string, greeting: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.end(greeting));
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
}

export function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return address.port;
}

/**
 * A process that opens an agent and a scorer sandbox for `runId` (a running command in the first)
 * and waits to be killed: what a killed run leaves behind once it is sent SIGKILL.
 */
export async function openAndHang(runId: string): Promise<ChildProcess> {
  const fixture = fileURLToPath(new URL('./fixtures/open-and-hang.mjs', import.meta.url));
  const child = spawn(process.execPath, [fixture, runId], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  for (let i = 0; i < 1200 && !output.includes('ready') && child.exitCode === null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!output.includes('ready')) {
    child.kill('SIGKILL');
    throw new Error('the fixture process did not open its sandboxes');
  }
  return child;
}

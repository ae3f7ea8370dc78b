import { setTimeout as delay } from 'node:timers/promises';
import type { Sandbox, SandboxSpec } from '@longhaul/core';
import type { EnvironmentContext } from './environment.js';

/** Opens a sandbox of the context's environment (spec fields overridden), and closes it after `use`. */
export async function withSandbox(
  context: EnvironmentContext,
  use: (sandbox: Sandbox) => Promise<void>,
  spec: Partial<SandboxSpec> = {},
): Promise<void> {
  const sandbox = await context.environment.open({ ...context.spec, ...spec });
  try {
    await use(sandbox);
  } finally {
    await sandbox.close();
  }
}

/** `promise`, or a rejection naming `what` once `ms` have passed. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sizes of the workspace's files, read through the file API (it runs nothing in the sandbox). */
export async function sizes(sandbox: Sandbox): Promise<Record<string, number>> {
  const entries = await sandbox.list('', { recursive: true });
  return Object.fromEntries(entries.filter((e) => e.type === 'file').map((e) => [e.path, e.size]));
}

/** The files that grew over `ms` (while nothing may write to them), and by how much. */
export async function growthOver(sandbox: Sandbox, ms: number): Promise<Record<string, number>> {
  const before = await sizes(sandbox);
  await delay(ms);
  const after = await sizes(sandbox);
  return Object.fromEntries(
    Object.entries(after)
      .map(([path, size]) => [path, size - (before[path] ?? 0)] as const)
      .filter(([, grown]) => grown !== 0),
  );
}

import {
  type CliCase,
  type ExecResult,
  exitCodeMatches,
  type FileEntry,
  prepareCaseWorkspace,
  type Sandbox,
} from '@longhaul/core';
import { type Check, checkOutput } from './check-output.js';

export interface CaseRun {
  checks: Check[];
  /** The invocation the checks are about (the last one run). */
  result?: ExecResult;
  /** Output files as found after the run (path → content, null when missing). */
  files: Record<string, string | null>;
}

export interface CaseRunOptions {
  entrypoint: string[];
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
  /** The workspace as listed before the case (recursive), to find what the case must clear. */
  baseline?: readonly FileEntry[];
}

function failedRun(result: ExecResult, what: string, timeoutMs: number): Check | undefined {
  if (result.timedOut) {
    return { target: what, passed: false, reason: `timed out after ${timeoutMs} ms`, summary: 'timed out' };
  }
  if (result.exitCode === null) {
    const reason = result.oomKilled ? 'killed for memory' : 'killed by a signal';
    return { target: what, passed: false, reason, summary: reason };
  }
  return undefined;
}

/** Runs one case in the scorer's sandbox and checks every expectation it has. */
export async function runCase(sandbox: Sandbox, spec: CliCase, options: CaseRunOptions): Promise<CaseRun> {
  await prepareCaseWorkspace(sandbox, spec, options.baseline);
  const exec = (argv: string[], stdin: string | undefined) =>
    sandbox.exec([...options.entrypoint, ...argv], {
      stdin: stdin ?? '',
      env: spec.env,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
      signal: options.signal,
    });
  for (const [position, before] of (spec.before ?? []).entries()) {
    const result = await exec(before.argv, before.stdin);
    const target = `before[${position}]`;
    const fault = failedRun(result, target, options.timeoutMs);
    if (fault) return { checks: [fault], result, files: {} };
    if (!exitCodeMatches(before.exitCode, result.exitCode)) {
      const last = result.stderr.trim().split('\n').at(-1)?.slice(0, 120);
      const summary = `expected exit ${before.exitCode}, got ${result.exitCode}`;
      const reason = last ? `${summary}: ${last}` : summary;
      return { checks: [{ target, passed: false, reason, summary }], result, files: {} };
    }
  }
  const result = await exec(spec.argv, spec.stdin);
  const fault = failedRun(result, 'run', options.timeoutMs);
  if (fault) return { checks: [fault], result, files: {} };
  const checks: Check[] = [];
  const { exitCode } = spec.expect;
  checks.push(
    exitCodeMatches(exitCode, result.exitCode)
      ? { target: 'exit code', passed: true }
      : {
          target: 'exit code',
          passed: false,
          reason: `expected ${exitCode}, got ${result.exitCode}`,
          summary: `expected ${exitCode}, got ${result.exitCode}`,
        },
  );
  if (spec.expect.stdout) checks.push(checkOutput('stdout', spec.expect.stdout, result.stdout));
  if (spec.expect.stderr) checks.push(checkOutput('stderr', spec.expect.stderr, result.stderr));
  const files: Record<string, string | null> = {};
  for (const [path, expectation] of Object.entries(spec.expect.files ?? {})) {
    const data = await sandbox.readFile(path).catch(() => undefined);
    files[path] = data === undefined ? null : Buffer.from(data).toString('utf8');
    const target = `file ${path}`;
    if (expectation.absent) {
      checks.push(
        data === undefined
          ? { target, passed: true }
          : { target, passed: false, reason: 'exists but should not', summary: 'should not exist' },
      );
    } else if (data === undefined) {
      checks.push({ target, passed: false, reason: 'missing', summary: 'missing' });
    } else {
      checks.push(checkOutput(target, expectation, files[path]!));
    }
  }
  return { checks, result, files };
}

function changed(before: FileEntry, after: FileEntry | undefined): boolean {
  return !after || after.type !== before.type || (before.type === 'file' && after.size !== before.size);
}

/**
 * Puts the workspace back as it was before a case: new entries are removed; when a file that was
 * there changed size or vanished, or the case wrote over it (`written`), the snapshot is restored.
 */
export async function resetWorkspace(
  sandbox: Sandbox,
  baseline: FileEntry[],
  snapshot: string,
  written: string[],
): Promise<void> {
  const now = await sandbox.list('.', { recursive: true });
  const known = new Map(baseline.map((entry) => [entry.path, entry]));
  const current = new Map(now.map((entry) => [entry.path, entry]));
  if (
    written.some((path) => known.has(path)) ||
    baseline.some((entry) => changed(entry, current.get(entry.path)))
  ) {
    await sandbox.restore(snapshot);
    return;
  }
  const added = now.filter((entry) => !known.has(entry.path)).map((entry) => entry.path);
  const addedSet = new Set(added);
  const topmost = added.filter((path) => !addedSet.has(path.slice(0, path.lastIndexOf('/'))));
  try {
    for (const path of topmost) await sandbox.remove(path);
  } catch {
    // An environment whose remove() refuses directories still offers restore().
    await sandbox.restore(snapshot);
  }
}

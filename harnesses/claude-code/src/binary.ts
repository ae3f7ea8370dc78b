import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The version of @anthropic-ai/claude-code this package depends on (exactly). */
export const pinnedVersion: string = (
  JSON.parse(readFileSync(require.resolve('@anthropic-ai/claude-code/package.json'), 'utf8')) as {
    version: string;
  }
).version;

function isMusl(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return process.platform === 'linux' && !report?.header?.glibcVersionRuntime;
}

/** Name of the platform package that carries the native binary, e.g. @anthropic-ai/claude-code-linux-x64. */
export function platformPackage(): string {
  const suffix = isMusl() ? '-musl' : '';
  return `@anthropic-ai/claude-code-${process.platform}-${process.arch}${suffix}`;
}

/**
 * The native claude binary installed with this package. npm does not run Claude Code's
 * postinstall (it would copy the binary into bin/), so the platform package is read directly.
 */
export function bundledBinary(): string {
  const name = process.platform === 'win32' ? 'claude.exe' : 'claude';
  try {
    const binary = join(dirname(require.resolve(`${platformPackage()}/package.json`)), name);
    if (existsSync(binary)) return binary;
  } catch {
    // Fall through to the copy the postinstall script makes when it did run.
  }
  const copied = join(
    dirname(require.resolve('@anthropic-ai/claude-code/package.json')),
    'bin',
    'claude.exe',
  );
  // Before its postinstall runs, bin/claude.exe is a small placeholder script, not the program.
  if (existsSync(copied) && statSync(copied).size > 1_000_000) return copied;
  throw new Error(
    `the Claude Code native binary is missing: install ${platformPackage()}@${pinnedVersion} (npm skips optional dependencies with --omit=optional)`,
  );
}

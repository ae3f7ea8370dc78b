import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The version of @openai/codex this package depends on (exactly). */
export const pinnedVersion: string = (
  JSON.parse(readFileSync(require.resolve('@openai/codex/package.json'), 'utf8')) as { version: string }
).version;

const targets: Record<string, string> = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
};

/**
 * The native codex binary installed with this package (the platform package's vendor directory,
 * where the npm launcher script would find it). The Linux builds are static, so the same file
 * also runs inside a container.
 */
export function bundledBinary(): string {
  const platform = `${process.platform}-${process.arch}`;
  const target = targets[platform];
  if (!target) throw new Error(`Codex has no native build for ${platform}`);
  const platformPackage = `@openai/codex-${platform}`;
  let binary: string | undefined;
  try {
    binary = join(
      dirname(require.resolve(`${platformPackage}/package.json`)),
      'vendor',
      target,
      'bin',
      'codex',
    );
  } catch {
    binary = undefined;
  }
  if (binary && existsSync(binary)) return binary;
  throw new Error(
    `the Codex native binary is missing: install ${platformPackage} (npm:@openai/codex@${pinnedVersion}-${platform}); npm skips optional dependencies with --omit=optional`,
  );
}

import { vi } from 'vitest';
import { main } from '../src/main.js';

/**
 * Runs the CLI in-process with `cwd` as the working directory, capturing what it prints. Plugins
 * are found from `cwd` only, not beside the CLI (the repository), so fixture projects see their own.
 */
export async function runCli(
  argv: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    const code = await main(argv, { installDir: null });
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.chdir(previous);
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

import { realpath } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { makeProject } from '../../kernel/test/fixtures/config/project.js';
import { repoRoot } from './install-copy.js';
import { runCli } from './run-cli.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function project(installed: string[]) {
  const made = await makeProject(installed);
  cleanups.push(made.remove);
  return realpath(made.dir);
}

describe('commands contributed by installed packages', () => {
  it('are listed by --help from the manifest, and run with every argument after their name', async () => {
    const cwd = await project(['commands']);
    const help = await runCli(['--help'], cwd);
    expect(help.stdout).toMatch(/\n {2}greet \[args\.\.\.\] +Say hello \(from @fixture\/commands\)\n/);
    const result = await runCli(['greet', 'there', '--loud', '--help'], cwd);
    expect(result).toEqual({ code: 0, stdout: `hello there --loud --help from ${cwd}\n`, stderr: '' });
    expect((await runCli(['greet', '--fail'], cwd)).code).toBe(3);
  });

  it('cannot replace a built-in command', async () => {
    const cwd = await project(['commands']);
    expect((await runCli(['--help'], cwd)).stdout.match(/\n {2}run /g)).toHaveLength(1);
  });

  it("the repository's plugins add images, prune, slump and swe-steps, which run through the CLI", async () => {
    // Commander wraps descriptions to the terminal's width: compare with the lines joined.
    const help = (await runCli(['--help'], repoRoot)).stdout.replace(/\s+/g, ' ');
    for (const [name, from] of [
      ['images', 'environment-docker'],
      ['prune', 'environment-docker'],
      ['slump', 'scorer-faithfulness'],
      ['swe-steps', 'source-swe-steps'],
    ]) {
      expect(help).toMatch(new RegExp(` ${name} \\[args\\.\\.\\.\\] [^(]+\\(from @longhaul/${from}\\) `));
    }
    const ref = await runCli(['images', 'ref'], repoRoot);
    expect(ref).toMatchObject({ code: 0, stderr: '' });
    expect(ref.stdout).toMatch(/^longhaul\/base:[0-9a-f]{12}\n$/);
    const usage = await runCli(['slump', 'calibrate'], repoRoot);
    expect(usage).toMatchObject({ code: 1, stderr: "error: missing required argument 'labels'\n" });
  });
});

import { realpath } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { makeProject } from '../../kernel/test/fixtures/config/project.js';
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
});

import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCommandsConformance, runCommandCapturing } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import commands from '../src/commands/index.js';

const runCli = (argv: string[], cwd: string) =>
  runCommandCapturing(commands, argv, { cwd, installDir: null });

describeCommandsConformance(fileURLToPath(new URL('..', import.meta.url)), commands);

const window = ['swe-steps', 'mine', '.', '--since', '2025-01-01', '--until', '2025-02-01', '--out', 'd'];

describe('longhaul swe-steps mine: bad input', () => {
  it('a date that is not one: one line on stderr, exit 2, nothing written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-swe-steps-'));
    const args = ['--until', '2025-01-01', '--out', 'dataset', '--image', 'none'];
    const result = await runCli(['swe-steps', 'mine', '.', '--since', 'tuesday', ...args], dir);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'swe-steps mine: --since tuesday: not a date (use YYYY-MM-DD or an ISO 8601 time)\n',
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('a PR text file with a wrong type is located at its line, column and key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-swe-steps-'));
    await writeFile(join(dir, 'prs.json'), '[\n  { "number": 1, "title": 7 }\n]\n');
    const result = await runCli([...window, '--prs', 'prs.json', '--image', 'none'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'prs.json:2:18: [0].title: expected string, received number\n1 problem found\n',
    );
  });

  it('--classify without --models', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-swe-steps-'));
    const result = await runCli([...window, '--classify', 'm'], dir);
    expect(result).toMatchObject({ code: 2, stderr: '--classify needs --models FILE naming the model\n' });
  });
});

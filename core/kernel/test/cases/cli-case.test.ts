import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, exitCodeMatches, formatIssue, readCliCase } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

async function caseFile(text: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'longhaul-case-')), 'case.yaml');
  await writeFile(file, text);
  return file;
}

async function problems(text: string): Promise<string[]> {
  const error = await readCliCase(await caseFile(text)).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map((issue) => formatIssue(issue).replace(/^.*case\.yaml:/, ''));
}

describe('readCliCase', () => {
  it('reads a case and fills the defaults', async () => {
    const file = await caseFile(
      'argv: [run]\nbefore:\n  - argv: [init]\nexpect:\n  stdout: { json: null }\n  files:\n    out.txt: { absent: true }\n',
    );
    expect(await readCliCase(file)).toEqual({
      argv: ['run'],
      before: [{ argv: ['init'], exitCode: 0 }],
      expect: { exitCode: 0, stdout: { json: null }, files: { 'out.txt': { absent: true } } },
    });
  });

  it('reads what a case owns and an exit code that must be a failure', async () => {
    const file = await caseFile(
      'argv: [t1]\nremove: [/tasks, conftest.py]\nbefore:\n  - { argv: [t1-canary], exitCode: nonzero }\nexpect: {}\n',
    );
    expect(await readCliCase(file)).toEqual({
      argv: ['t1'],
      remove: ['/tasks', 'conftest.py'],
      before: [{ argv: ['t1-canary'], exitCode: 'nonzero' }],
      expect: { exitCode: 0 },
    });
    expect(exitCodeMatches('nonzero', 1)).toBe(true);
    expect(exitCodeMatches('nonzero', 0)).toBe(false);
    // Killed: no exit code, which is no failing test either.
    expect(exitCodeMatches('nonzero', null)).toBe(false);
    expect(exitCodeMatches(2, 2)).toBe(true);
    expect(await problems('argv: []\nexpect: { exitCode: sometimes }\n')).toEqual([
      '2:11: expect.exitCode: must be an exit code (an integer) or nonzero',
    ]);
  });

  it('locates every problem of an expectation', async () => {
    expect(await problems('argv: []\nexpect:\n  stdout: { text: a, tolerance: 1 }\n')).toEqual([
      '3:22: expect.stdout.tolerance: applies to json and jsonl only',
    ]);
    expect(await problems('argv: []\nexpect:\n  stdout: { json: {}, normalize: [trim] }\n')).toEqual([
      '3:23: expect.stdout.normalize: trim cannot apply here (json takes none, jsonl only sortLines)',
    ]);
    expect(await problems('argv: []\nexpect:\n  stderr: { absent: true }\n')).toEqual([
      "3:13: expect.stderr.absent: 'absent' applies to output files only",
    ]);
    expect(await problems('argv: [1]\nexpect: {}\n')).toEqual([
      expect.stringMatching(/^1:8: argv\[0\]: .*string/),
    ]);
  });

  it('says when the file is missing', async () => {
    await expect(readCliCase('/nonexistent/case.yaml')).rejects.toThrow(/cannot read file/);
  });
});

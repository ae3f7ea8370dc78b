import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatIssue, readCase } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

async function caseFile(text: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'longhaul-http-case-')), 'case.yaml');
  await writeFile(file, text);
  return file;
}

async function issues(text: string): Promise<string[]> {
  const error = await readCase(await caseFile(text)).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map(formatIssue);
}

describe('readCase', () => {
  it('reads a file with requests as an HTTP case, with defaults filled in', async () => {
    const read = await readCase(
      await caseFile(
        'requests:\n  - path: /a\n    expect: { status: 200, partial: { ok: true } }\n  - restart: true\n',
      ),
    );
    expect(read).toEqual({
      kind: 'http',
      spec: {
        server: { argv: [], ready: { timeoutMs: 10_000 } },
        requests: [
          { method: 'GET', path: '/a', expect: { status: 200, partial: { ok: true } } },
          { restart: true },
        ],
      },
    });
  });

  it('reads any other file as a CLI case', async () => {
    expect(await readCase(await caseFile('argv: [a]\nexpect: { stdout: { text: x } }\n'))).toMatchObject({
      kind: 'cli',
      spec: { argv: ['a'], expect: { exitCode: 0 } },
    });
  });

  it('locates mistakes in HTTP cases', async () => {
    expect(
      await issues('requests:\n  - path: a\n    expect: { status: 200, json: 1, schema: {} }\n'),
    ).toEqual([
      expect.stringMatching(/case\.yaml:2:5: requests\[0\]\.path: must start with "\/"/),
      expect.stringMatching(
        /case\.yaml:3:5: requests\[0\]\.expect: takes at most one of json, partial, schema, text/,
      ),
    ]);
    expect(await issues('requests:\n  - { path: /a, expect: { status: 200, tolerance: 1 } }\n')).toEqual([
      expect.stringMatching(/requests\[0\]\.expect\.tolerance: applies to json and partial bodies only/),
    ]);
    expect(await issues('requests:\n  - { path: /a, json: {}, body: x, expect: { status: 99 } }\n')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/expect\.status/),
        expect.stringMatching(/body: give json or body/),
      ]),
    );
  });
});

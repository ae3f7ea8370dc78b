import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type ConfigIssue } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import plugin, { datasetFormat, SweStepsSource } from '../src/index.js';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);

function record(number: number, status: 'validated' | 'excluded', parent = a) {
  return {
    commit_id: b,
    parent_id: parent,
    pr_number: number,
    prs: { number, title: 't', body: '', style: 'squash', issues: [] },
    merged_at: '2025-01-01T00:00:00Z',
    changed_files: [],
    test_files: [],
    changes: { added: [], modified: [], deleted: [] },
    pass_to_pass: [],
    fail_to_pass: [],
    fix_patch: '',
    test_patch: '',
    all_texts: { title: 't', body: '', issues: [], docs: '' },
    status,
    ...(status === 'excluded' ? { excluded: { reason: 'docs-only', detail: '' } } : {}),
    dropped_tests: [],
  };
}

const valid = {
  format: datasetFormat,
  repository: { name: 'demo', source: '/x', branch: 'main', head: b },
  window: { since: '2025-01-01', until: '2025-02-01' },
  options: {},
  environment: { setup: [], toolchains: ['python'] },
  tests: { command: ['python3', '-m', 'pytest'], timeoutSeconds: 60 },
  stats: {
    commits: 0,
    prsSeen: 0,
    excluded: {},
    validated: 0,
    validatedNow: 0,
    fromCache: 0,
    testsDropped: 0,
    chains: 0,
    prsInChains: 0,
    wallSeconds: 0,
  },
  prs: [record(1, 'validated'), record(2, 'excluded')],
  chains: [{ id: 'pr1-pr2', base: a, prs: [1, 2] }],
};

async function issuesOf(manifest: unknown): Promise<ConfigIssue[]> {
  const dir = await mkdtemp(join(tmpdir(), 'swe-steps-bad-'));
  if (manifest !== undefined) await writeFile(join(dir, 'dataset.json'), JSON.stringify(manifest, null, 2));
  const source = new SweStepsSource(plugin.options.parse({ path: dir, cacheDir: join(dir, 'cache') }));
  const error = await source.load({ baseDir: dir }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map((issue) => ({ ...issue, file: issue.file.replace(dir, 'DIR') }));
}

describe('source swe-steps: a malformed dataset is a located error', () => {
  it('a directory without dataset.json', async () => {
    expect(await issuesOf(undefined)).toEqual([
      {
        file: 'DIR',
        key: 'path',
        message:
          'is not a SWE-STEPS dataset: it has no dataset.json (make one with `longhaul swe-steps mine`)',
      },
    ]);
  });

  it('wrong types and unknown keys, at their line and column', async () => {
    const manifest = { ...valid, prs: [{ ...record(1, 'validated'), pr_number: 'one', extra: 1 }] };
    const lines = JSON.stringify(manifest, null, 2).split('\n');
    const lineOf = (text: string) => lines.findIndex((line) => line.includes(text)) + 1;
    const issues = await issuesOf(manifest);
    expect(issues.map((issue) => [issue.key, issue.line, issue.column, issue.message])).toEqual([
      ['prs[0].pr_number', lineOf('"pr_number": "one"'), 7, 'expected number, received string'],
      ['prs[0].extra', lineOf('"extra": 1'), 7, "unknown key 'extra'"],
    ]);
    expect(issues[0]!.file).toBe('DIR/dataset.json');
  });

  it('a chain naming an excluded PR, and a base that is not its first PR’s parent', async () => {
    const issues = await issuesOf({ ...valid, chains: [{ id: 'pr1-pr2', base: b, prs: [1, 2, 3] }] });
    expect(issues.map((issue) => [issue.key, issue.message])).toEqual([
      ['chains[0].prs[1]', 'PR #2 was not validated (docs-only)'],
      ['chains[0].prs[2]', 'PR #3 is not in prs'],
      ['chains[0].base', "is not the parent of the chain's first PR #1"],
    ]);
    expect(issues[0]!.line).toBeGreaterThan(1);
  });

  it('a dataset without its bundle', async () => {
    const issues = await issuesOf({ ...valid, chains: [{ id: 'pr1', base: a, prs: [1] }] });
    expect(issues).toEqual([
      { file: 'DIR/repository.bundle', message: 'missing: the dataset has no repository bundle' },
    ]);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, longhaul } from './cli-build.js';

// `longhaul scbench check`: before money is spent, each selected checkpoint's reference solution
// runs where the experiment would run, and the checkpoints it cannot solve there are named with
// why. typealias's reference uses Python 3.12 syntax (as upstream's database_migration), mounts'
// refuses a folder this checkout lacks in two of its three tests (as upstream's file_backup).
const fixtures = join(import.meta.dirname, 'fixtures');
const python = execFileSync('/usr/bin/python3', ['-c', 'import sys; print(sys.version_info[1])'], {
  encoding: 'utf8',
}).trim();
let work: string;

beforeAll(async () => {
  await build();
  work = await mkdtemp(join(tmpdir(), 'longhaul-scbench-check-'));
}, 620_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('longhaul scbench check', () => {
  it('names each checkpoint its reference cannot solve in this environment, and why', async () => {
    const file = join(work, 'check.yaml');
    await writeFile(
      file,
      [
        'name: check',
        `source: { id: scbench, options: { path: ${join(fixtures, 'check')} } }`,
        'harness: oracle',
        'environment: local',
        'script: checkpoints',
        'scorers: [tests]',
        '',
      ].join('\n'),
    );
    const { code, output } = await longhaul(['scbench', 'check', file, '--json']);
    expect(code).toBe(1);
    const found = JSON.parse(output.slice(output.indexOf('['), output.lastIndexOf(']') + 1)) as {
      task: string;
      verdict: string;
      passed: number;
      total: number;
      why?: string;
    }[];
    const mounts = found.find((row) => row.task === 'mounts')!;
    expect(mounts).toMatchObject({ verdict: 'unsolvable', passed: 1, total: 3 });
    expect(mounts.why).toContain('2 of 3 tests fail with the reference');
    expect(mounts.why).toContain('--mount must point to an existing directory');
    const typealias = found.find((row) => row.task === 'typealias')!;
    if (Number(python) < 12) {
      expect(typealias).toMatchObject({ verdict: 'unsolvable', passed: 1, total: 2 });
      expect(typealias.why).toContain('a SyntaxError: the reference uses syntax this Python lacks');
    } else expect(typealias).toMatchObject({ verdict: 'solved', passed: 2, total: 2 });
  }, 300_000);
});

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, build, repoRoot } from './cli-build.js';

// End to end through the real CLI: the oracle harness writes each checkpoint's reference solution,
// the tests scorer runs the hidden pytest suites (scbench source) and HTTP cases (native source,
// problems/linkshelf), and the solve-rates scorer and reporter make the Table 1.
let work: string;

beforeAll(async () => {
  await build();
  work = await mkdtemp(join(tmpdir(), 'longhaul-scbench-run-'));
}, 620_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** An experiment running the oracle over scbench problems (`options` of the source, as YAML). */
async function oracleOver(name: string, options: string): Promise<string> {
  const experiment = join(work, `${name}.yaml`);
  await writeFile(
    experiment,
    [
      `name: ${name}`,
      `source: { id: scbench, options: ${options} }`,
      'harness: oracle',
      'script: { id: checkpoints, label: just-solve, options: { prompt: just-solve } }',
      'scorers: [tests]',
      '',
    ].join('\n'),
  );
  return experiment;
}

// A PATH without uv and with Debian's Python 3.11 first, as on the machines CI runs on.
const env = { ...process.env, PATH: '/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' };

/** The standard error of a CLI command that must be refused as bad input (exit 2). */
async function refused(args: string[]): Promise<string> {
  const failed = await promisify(execFile)('node', [bin, ...args], {
    cwd: repoRoot,
    env,
    timeout: 120_000,
  }).catch((error: { code: number; stderr: string }) => error);
  expect(failed).toMatchObject({ code: 2 });
  return (failed as { stderr: string }).stderr;
}

describe.skipIf(!prerequisites.pytest())('the oracle over scbench problems and problems/linkshelf', () => {
  it('solves every checkpoint through both sources and prints the Table 1', async () => {
    const experiment = join(work, 'scbench-fixtures.yaml');
    await writeFile(
      experiment,
      [
        'name: scbench-fixtures',
        'source:',
        `  - { id: scbench, options: { path: ${join(import.meta.dirname, 'fixtures/problems')} } }`,
        `  - { id: longhaul, options: { path: ${join(repoRoot, 'problems')}, tasks: [linkshelf] } }`,
        'harness: oracle',
        'script: { id: checkpoints, label: just-solve, options: { prompt: just-solve } }',
        'scorers: [tests, solve-rates]',
        'reporters: [solve-rates]',
        'concurrency: 3',
        '',
      ].join('\n'),
    );
    const runDir = join(work, 'run');
    const { stdout } = await promisify(execFile)('node', [bin, 'run', experiment, '--run-dir', runDir], {
      cwd: repoRoot,
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toMatch(/condition\s+scored\s+errored\s+cancelled\s+Strict\s+Iso\.\s+Core\s+Partial/);
    expect(stdout).toMatch(/oracle\/just-solve\/none\s+8\s+0\s+0\s+100\.0\s+100\.0\s+100\.0\s+100\.0/);
    const table = JSON.parse(await readFile(join(runDir, 'solve-rates.json'), 'utf8'));
    expect(table['oracle/just-solve/none']).toMatchObject({
      strict: 1,
      iso: 1,
      core: 1,
      full: 1,
      problems: 3,
      'checkpoints.produced': 8,
      'checkpoints.all': 8,
    });
    const prompt = await readFile(
      join(runDir, 'trials/wordfreq.oracle.just-solve.none.r1/steps/02-checkpoint_2/prompt.md'),
      'utf8',
    );
    expect(prompt).toContain('Keep working in the virtual environment you set up earlier');
    expect(prompt).toContain('python3 wordfreq.py <file> [--top N] [--json] [--stopwords]');
  }, 600_000);

  it('refuses, in validate and in run, problems this host cannot run, naming each and what it lacks', async () => {
    const path = join(import.meta.dirname, 'fixtures/requirements');
    const experiment = await oracleOver(
      'scbench-requirements',
      `{ path: ${path}, problems: [pep701, uvrun] }`,
    );
    const runDir = join(work, 'refused');
    for (const args of [
      ['validate', experiment],
      ['run', experiment, '--run-dir', runDir],
    ]) {
      const stderr = await refused(args);
      expect(stderr).toMatch(
        /environment 'local': task pep701 cannot run on this host: missing python3 >= 3\.12 \(\S+\/pep701\/config\.yaml:11\), python3 is 3\.11\.\d+/,
      );
      expect(stderr).toContain(
        `environment 'local': task uvrun cannot run on this host: missing programs on PATH: uv (${path}/uvrun/tests/test_checkpoint_1.py:9)`,
      );
    }
    expect(existsSync(runDir), 'nothing was run').toBe(false);
  }, 300_000);

  it('validate lists every problem of a directory at once: data at fault and what the environment lacks', async () => {
    const path = join(import.meta.dirname, 'fixtures/preflight');
    const experiment = await oracleOver('scbench-preflight', `{ path: ${path} }`);
    const stderr = await refused(['validate', experiment]);
    expect(stderr).toContain(`${path}/ledger/tests/data/cases.json is a Git LFS pointer`);
    expect(stderr).toContain(`${path}/ledger/tests/data/expected.txt, which is empty`);
    // duckdb is in no Debian release: no host these tests run on has it for /usr/bin/python3.
    expect(stderr).toContain(
      `environment 'local': task pricedb cannot run on this host: missing Python packages duckdb (the reference solution needs it: ${path}/pricedb/solutions/checkpoint_1/pricedb.py:3)`,
    );
    expect(stderr).not.toContain('task rulecheck');
  }, 300_000);
});

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

interface JsonReport {
  numFailedTests: number;
  testResults: { assertionResults: { fullName: string; status: string }[] }[];
}

describe('describeScript in a plugin test file', () => {
  it('fails the run of a plugin that breaks the contract, naming the broken rule', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-describe-'));
    const out = join(dir, 'report.json');
    const run = promisify(execFile)(
      process.execPath,
      [vitest, 'run', '--config', 'test/fixtures/vitest.config.ts', '--reporter=json', `--outputFile=${out}`],
      { cwd: packageDir },
    );
    await expect(run).rejects.toMatchObject({ code: 1 });
    const report = JSON.parse(await readFile(out, 'utf8')) as JsonReport;
    await rm(dir, { recursive: true, force: true });
    const results = report.testResults.flatMap((file) => file.assertionResults);
    const failed = results.filter((r) => r.status === 'failed').map((r) => r.fullName);
    expect(failed).toEqual(['script conformance: scores-twice every step is scored exactly once, in order']);
    expect(results.filter((r) => r.status === 'passed').length).toBe(results.length - 1);
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureExperiment, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';

// The fixture experiment's scorer, fixture-files, is a plugin of one's own (loaded through
// plugins:); the summary reporter prints the end-of-run table.
const work = workDir('longhaul-summary-columns-', ['core/cli', 'plugins/reporter-summary']);

const run = (name: string, reporters: string) =>
  spawnCli(
    ['run', fixtureExperiment, '--run-dir', join(work(), name), '--set', `reporters=${reporters}`],
    work(),
  ).done;

describe("the end-of-run table shows the scores of one's own scorer", () => {
  it('as a column of its means by default, explained under the table', async () => {
    const result = await run('default', '[summary]');
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(
      / +strict +iso +core +tools failed +tamper +fixture-files\.match +cost +trial time +wall$/,
    );
    // The fixture has no tests scorer: no solve rate, and the writer matches every step's reference.
    expect(lines[1]).toMatch(
      /^fixture-writer\/fixture-steps\/fixture-none +2 +6 +6 +0 +0 +– +– +– +0 +0 +1 +\$0\.00 /,
    );
    expect(lines).toContain(
      'fixture-files.match: mean over the scored steps (and trials) that have the score',
    );
    expect(lines).toContain('–: nothing measured, so no value (not 0)');
  });

  it('names a column of the columns option that no step scored, and the scores there are', async () => {
    const result = await run('unknown', '[{id: summary, options: {columns: [fixture-files.mach]}}]');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/ +core +tools failed +tamper +cost +trial time +wall$/);
    expect(result.stdout).toContain(
      'summary: columns names fixture-files.mach, which no step or trial of this run scored (did you mean fixture-files.match?); its scores: fixture-files.match',
    );
  });

  it('refuses at validate, at its line and column, a column whose scorer the experiment does not have', async () => {
    const text = (await readFile(fixtureExperiment, 'utf8'))
      .replace('./plugin', join(dirname(fixtureExperiment), 'plugin'))
      .replace(
        'reporters: [fixture-summary]',
        'reporters:\n  - id: summary\n    options: { columns: [fixture-file.match] }',
      );
    const file = join(work(), 'misspelt.yaml');
    await writeFile(file, text);
    const result = await spawnCli(['validate', file], work()).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}:11:26: reporters[0].options.columns[0]: reporter 'summary' names score 'fixture-file.match', but no scorer of the experiment is labelled 'fixture-file' (its scorers: fixture-files, integrity) (did you mean 'fixture-files.match'?)`,
    );
  });
});

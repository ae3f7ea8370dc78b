import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { idebenchPackages, repoRoot, spawnCli, workDir } from '../../cli/test/fixtures/resume/spawn-cli.js';
import { type TidyRow, tidyColumns } from '../src/index.js';

/**
 * `longhaul export` of a real run (examples/idebench.yaml: two conditions, three tasks, three
 * repeats, step, trial and experiment scorers), read back and matched against summary.json.
 */
const work = workDir('longhaul-export-', idebenchPackages);

/** RFC 4180 CSV, as pandas reads it: quoted fields may hold commas, quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  return rows;
}

/** A CSV row typed as a tidy row: empty is null, numbers are numbers. */
function typed(header: string[], cells: string[]): TidyRow {
  const row: Record<string, string | number | null> = Object.fromEntries(
    header.map((name, i) => [name, cells[i] === '' ? null : cells[i]!]),
  );
  for (const name of ['repeat', 'step', 'value']) if (row[name] !== null) row[name] = Number(row[name]);
  return row as unknown as TidyRow;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

interface Summary {
  trials: { id: string }[];
  conditions: {
    condition: string;
    trials: number;
    scored: number;
    solveRates: { strict: number | null };
    scores: Record<string, number>;
  }[];
  experimentScores: { key: string; condition: string; value: number | boolean | null }[];
}

describe('longhaul export', () => {
  it('writes a tidy table that reads back (CSV, JSON Lines, Parquet) to the numbers of summary.json', async () => {
    const runDir = join(work(), 'idebench');
    const run = await spawnCli(
      ['run', join(repoRoot, 'examples/idebench.yaml'), '--run-dir', runDir],
      repoRoot,
    ).done;
    expect(run.code, run.stderr).toBe(0);
    const csv = await spawnCli(['export', runDir], repoRoot).done;
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...lines] = parseCsv(csv.stdout);
    expect(header).toEqual([...tidyColumns]);
    const rows = lines.map((cells) => typed(header!, cells));
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8')) as Summary;

    expect(new Set(rows.map((row) => row.run))).toEqual(new Set(['idebench']));
    expect(new Set(rows.map((row) => row.harness))).toEqual(new Set(['ide']));
    expect(new Set(rows.map((row) => `${row.condition} ${row.model}`))).toEqual(
      new Set(['oracle/checkpoints/none oracle', 'nochange/checkpoints/none nochange']),
    );
    for (const condition of summary.conditions) {
      const own = rows.filter((row) => row.condition === condition.condition && row.regrade === null);
      expect(new Set(own.filter((r) => r.trial).map((r) => r.trial)).size).toBe(condition.trials);
      const scoredSteps = new Set(
        own.filter((r) => r.step !== null && r.outcome === 'scored').map((r) => `${r.trial}/${r.step}`),
      );
      expect(scoredSteps.size).toBe(condition.scored);
      const strict = own
        .filter((r) => r.metric === 'tests.strict' && r.outcome === 'scored')
        .map((r) => r.value!);
      expect(mean(strict)).toBeCloseTo(condition.solveRates.strict!, 12);
      // Every mean summary.json gives: over scored steps and the trials, values not measured left out.
      for (const [key, expected] of Object.entries(condition.scores)) {
        const values = own
          .filter((r) => r.metric === key && r.trial !== null && (r.step === null || r.outcome === 'scored'))
          .map((r) => r.value)
          .filter((v): v is number => v !== null);
        expect(mean(values), `${condition.condition} ${key}`).toBeCloseTo(expected, 12);
      }
    }
    // Values not measured stay empty, never 0: the null model's read-to-edit (it edited nothing).
    const unmeasured = rows.filter(
      (r) => r.metric === 'tool-use.read_to_edit' && r.condition.startsWith('nochange'),
    );
    expect(unmeasured.length).toBe(9);
    for (const row of unmeasured) expect(row.value).toBeNull();
    // Experiment scores: one row each, without task or trial.
    const experimentRows = rows.filter((r) => r.trial === null);
    expect(experimentRows).toHaveLength(summary.experimentScores.length);
    for (const score of summary.experimentScores) {
      const row = experimentRows.find((r) => r.metric === score.key && r.condition === score.condition)!;
      expect(row.value).toBe(typeof score.value === 'boolean' ? Number(score.value) : score.value);
    }

    // JSON Lines and Parquet hold the same rows.
    const jsonl = await spawnCli(['export', runDir, '--format', 'jsonl'], repoRoot).done;
    expect(jsonl.code, jsonl.stderr).toBe(0);
    const fromJsonl = jsonl.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TidyRow);
    expect(fromJsonl).toEqual(rows);
    const file = join(runDir, 'scores.parquet');
    const parquet = await spawnCli(['export', runDir, '--format', 'parquet', '--out', file], repoRoot).done;
    expect(parquet.code, parquet.stderr).toBe(0);
    expect(parquet.stderr).toContain(`${rows.length} rows, parquet`);
    const bytes = await readFile(file);
    const fromParquet = await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    });
    expect(fromParquet).toEqual(rows);

    // Parquet to a terminal is refused; a folder that is not a run is named.
    const refused = await spawnCli(['export', runDir, '--format', 'parquet'], repoRoot).done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('give --out FILE');
    const notRun = await spawnCli(['export', join(runDir, 'trials')], repoRoot).done;
    expect(notRun.code).toBe(2);
    expect(notRun.stderr).toContain('not a run directory');
  }, 600_000);
});

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCommandsConformance, runCommandCapturing } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import commands from '../src/commands/index.js';

const examples = fileURLToPath(new URL('../../../examples', import.meta.url));

describeCommandsConformance(fileURLToPath(new URL('..', import.meta.url)), commands);

describe('longhaul slump audit', () => {
  it('prints each task’s components with the request that discloses them, RCR and ESR', async () => {
    const result = await runCommandCapturing(commands, ['slump', 'audit', 'slump.yaml'], { cwd: examples });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^quire: RCR [0-9.]+, ESR [0-9.]+, \d+\/\d+ recoverable\n/);
    expect(result.stdout).toMatch(/\nCOMPONENT +LEVEL +REQUEST +RECOVERABLE AT +EXPLICIT AT\n/);
    expect(result.stdout).toContain('exposure curve (turn: recoverable / explicit): 1:');
  });

  it('--json prints the same audit as data', async () => {
    const result = await runCommandCapturing(commands, ['slump', 'audit', 'slump.yaml', '--json'], {
      cwd: examples,
    });
    const [first] = JSON.parse(result.stdout) as { authored: { task: string; components: unknown[] } }[];
    expect(first?.authored.task).toBe('quire');
    expect(first?.authored.components.length).toBeGreaterThan(0);
  });

  it('a key the experiment does not have is reported at its place, exit 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'slump-audit-'));
    await writeFile(
      join(dir, 'bad.yaml'),
      'name: bad\nsource: {id: slump}\nharness: oracle\nscirpt: conversation\n',
    );
    const result = await runCommandCapturing(commands, ['slump', 'audit', 'bad.yaml'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^bad\.yaml:4:1: scirpt: /m);
    expect(result.stdout).toBe('');
  });
});

describe('longhaul slump calibrate', () => {
  it('prints the agreement of each rater with the reference', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'slump-calibrate-'));
    await writeFile(join(dir, 'labels.csv'), 'id,human,judge\na,4,4\nb,3,3\nc,0,1\nd,2,2\n');
    const result = await runCommandCapturing(commands, ['slump', 'calibrate', 'labels.csv'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^4 pairs\nPAIR +κ \(QUADRATIC\) +EXACT .*\nhuman–judge +0\.\d{3} +75\.0% /,
    );
  });

  it('a label out of the rubric is located by line and column', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'slump-calibrate-'));
    await writeFile(join(dir, 'labels.csv'), 'id,human,judge\na,4,7\n');
    const result = await runCommandCapturing(commands, ['slump', 'calibrate', 'labels.csv'], { cwd: dir });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "labels.csv:2:3: judge: expected a rubric score 0–4, found '7'\n1 problem found\n",
    });
  });

  it('a reference column that is not there: one line, exit 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'slump-calibrate-'));
    await writeFile(join(dir, 'labels.csv'), 'id,human,judge\na,4,4\n');
    const result = await runCommandCapturing(
      commands,
      ['slump', 'calibrate', 'labels.csv', '--reference', 'x'],
      {
        cwd: dir,
      },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "labels.csv: no rater column 'x' (columns: human, judge)\n",
    });
  });
});

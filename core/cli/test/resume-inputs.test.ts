import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LockFile } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { fixtureExperiment, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';

const work = workDir('longhaul-resume-inputs-');

describe('longhaul resume and the files an experiment names', () => {
  it("refuses to resume when a scripted model's replies file changed since the run started", async () => {
    const replies = join(work(), 'replies.yaml');
    await writeFile(replies, '- text: one\n- text: two\n- text: three\n');
    const runDir = join(work(), 'run');
    const args = [
      '--set',
      `models={fixture: {backend: scripted, file: ${replies}}}`,
      '--set',
      'harness.options.askModel=true',
      '--set',
      'repeats=1',
    ];
    const first = await spawnCli(['run', fixtureExperiment, '--run-dir', runDir, ...args], work()).done;
    expect(first.code, first.stderr).toBe(0);
    const lock = JSON.parse(await readFile(join(runDir, 'lock.json'), 'utf8')) as LockFile;
    expect(lock.models?.fixture?.file).toBe(replies);
    expect(lock.models?.fixture?.sha256).toMatch(/^[0-9a-f]{64}$/);

    // Unchanged, the run resumes (there is nothing left to run).
    const same = await spawnCli(['resume', runDir], work()).done;
    expect(same.code, same.stderr).toBe(0);

    await writeFile(replies, '- text: uno\n- text: dos\n- text: tres\n');
    const summaryBefore = await stat(join(runDir, 'summary.json'));
    const changed = await spawnCli(['resume', runDir], work()).done;
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(
      `${replies}: models.fixture: model 'fixture' answers from this file, which changed since the run started`,
    );
    expect((await stat(join(runDir, 'summary.json'))).mtimeMs).toBe(summaryBefore.mtimeMs);
    expect(JSON.parse(await readFile(join(runDir, 'lock.json'), 'utf8'))).toEqual(lock);
  });
});

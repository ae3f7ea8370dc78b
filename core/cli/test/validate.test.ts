import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experiments, makeProject } from '../../kernel/test/fixtures/config/project.js';
import { runCli } from './run-cli.js';

let cwd: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir: cwd, remove } = await makeProject());
});
afterAll(() => remove());

describe('longhaul validate', () => {
  it('prints the number of tasks, conditions and trials of a valid experiment', async () => {
    const file = join(experiments, 'valid.yaml');
    const result = await runCli(['validate', file], cwd);
    expect(result).toEqual({
      code: 0,
      stdout: `${file}: valid: 2 tasks, 12 conditions, 48 trials\n`,
      stderr: '',
    });
  });

  it('exits 2 and prints file:line:column, key and suggestion for each problem, leaving no run directory', async () => {
    const before = [await readdir(cwd), await readdir(experiments)];
    const file = join(experiments, 'unknown-plugin.yaml');
    const result = await runCli(['validate', file], cwd);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    // The fixture experiment sits in the repository, so its project's plugins are offered too.
    expect(result.stderr.split('\n')).toEqual([
      expect.stringMatching(
        /^.*unknown-plugin\.yaml:5:5: harness\[1\]: unknown harness 'agnet' \(installed: agent, (.+, )?echo(, .+)?\) \(did you mean 'agent'\?\)$/,
      ),
      expect.stringMatching(
        /^.*unknown-plugin\.yaml:6:1: script: unknown script 'chekpoints' \(installed: checkpoints, (.+, )?isolated(, .+)?\) \(did you mean 'checkpoints'\?\)$/,
      ),
      '2 problems found',
      '',
    ]);
    expect([await readdir(cwd), await readdir(experiments)]).toEqual(before);
    expect(await readdir(cwd)).not.toContain('runs');
  });

  it('applies --set, and locates a bad override in the --set arguments', async () => {
    const file = join(experiments, 'minimal.yaml');
    const ok = await runCli(['validate', file, '--set', 'repeats=4', '--set', 'tasks=[calc]'], cwd);
    expect(ok.stdout).toBe(`${file}: valid: 1 task, 1 condition, 4 trials\n`);
    const bad = await runCli(['validate', file, '--set', 'repeats=4', '--set', 'repeats=-1'], cwd);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^--set:2:9: repeats: Too small: expected number to be >=1\n/);
  });

  it('surfaces a bad task file reported by the source', async () => {
    const result = await runCli(['validate', join(experiments, 'bad-task-file.yaml')], cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${join(experiments, 'tasks-bad.yaml')}:5:5: tasks[1].steps: a task needs a non-empty list of steps`,
    );
  });

  it('reports a file that does not exist', async () => {
    const result = await runCli(['validate', 'nowhere.yaml'], cwd);
    expect(result).toMatchObject({
      code: 2,
      stderr: 'nowhere.yaml: cannot read file: no such file or directory (ENOENT)\n1 problem found\n',
    });
  });

  it('prints the resolved experiment with --resolved', async () => {
    const result = await runCli(['validate', join(experiments, 'minimal.yaml'), '--resolved'], cwd);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^name: minimal\nbaseDir: .*\n/);
    expect(result.stdout).toContain('environment:\n  - id: local\n    label: local\n    options: {}\n');
  });
});

describe('longhaul tasks', () => {
  it('lists the selected tasks with their step counts and sources', async () => {
    const result = await runCli(['tasks', join(experiments, 'valid.yaml')], cwd);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'TASK       STEPS  SOURCE  TITLE',
        'wordfreq   3      list    wordfreq',
        'wordcount  2      list    wordcount',
        '',
      ].join('\n'),
    );
  });

  it('exits 2 on a bad experiment', async () => {
    const result = await runCli(['tasks', join(experiments, 'task-filter.yaml')], cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/task-filter\.yaml:3:15: tasks\[1\]: no task matches 'wordfrq'/);
  });
});

import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin, { ScbenchSource } from '../src/index.js';
import { build, longhaul } from './cli-build.js';

// A folder of problems where one is broken (lostdata: a data file missing from the checkout, as
// upstream's trajectory_api in a checkout without its data), and an experiment that selects
// another (`tasks: [shout]`): the broken one holds nothing up.
const fixtures = join(import.meta.dirname, 'fixtures');
let work: string;
let problems: string;

beforeAll(async () => {
  await build();
  work = await mkdtemp(join(tmpdir(), 'longhaul-scbench-scope-'));
  problems = join(work, 'problems');
  await cp(join(fixtures, 'fidelity/shout'), join(problems, 'shout'), { recursive: true });
  await cp(join(fixtures, 'requirements/lostdata'), join(problems, 'lostdata'), { recursive: true });
}, 620_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function experiment(command: string, tasks: string): Promise<{ code: number; output: string }> {
  const file = join(work, `${command}-${tasks}.yaml`);
  await writeFile(
    file,
    [
      `name: scope-${tasks}`,
      `source: { id: scbench, options: { path: ${problems} } }`,
      `tasks: [${tasks}]`,
      'harness: oracle',
      'environment: local',
      'script: { id: checkpoints, label: just-solve, options: { prompt: just-solve } }',
      'scorers: [tests]',
      'reporters: []',
      '',
    ].join('\n'),
  );
  const args = command === 'run' ? ['run', file, '--run-dir', join(work, `run-${tasks}`)] : [command, file];
  return longhaul(args);
}

describe('source scbench: validation is scoped to the selected tasks', () => {
  it('reads only the problems the task filter selects', async () => {
    const source = new ScbenchSource(plugin.options.parse({ path: problems }));
    const tasks = await source.load({ baseDir: '/', tasks: ['shout'] });
    expect(tasks.map((task) => task.id)).toEqual(['shout']);
    const all = await source.load({ baseDir: '/' }).catch((caught: unknown) => caught);
    expect(all).toBeInstanceOf(ConfigError);
    // Each issue names the problem it belongs to, so the kernel can leave out a task not selected.
    expect((all as ConfigError).issues.map((issue) => issue.task)).toEqual(['lostdata']);
  });

  it('validates and runs a one-task experiment while another problem in the folder is broken', async () => {
    const validated = await experiment('validate', 'shout');
    expect(validated.output).not.toContain('lostdata');
    expect(validated.code).toBe(0);
    const ran = await experiment('run', 'shout');
    expect(ran.output).not.toContain('lostdata');
    expect(ran.code).toBe(0);
  }, 300_000);

  it('still refuses the broken problem when it is the one selected', async () => {
    const { code, output } = await experiment('validate', 'lostdata');
    expect(code).toBe(2);
    expect(output).toContain('lostdata/tests/data/cases.json, which is not there');
  }, 120_000);
});

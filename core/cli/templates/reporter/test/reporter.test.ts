import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyUsage, type Reporter, type TrialRecord, type TrialSpec } from '@longhaul/core';
import { describeReporter, instantiatePlugin, sampleTask } from '@longhaul/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const runDirs: string[] = [];
afterAll(async () => {
  for (const dir of runDirs) await rm(dir, { recursive: true, force: true });
});

// The contract every reporter keeps (testkit's conformance suite).
describeReporter('{{id}}', () => instantiatePlugin<Reporter>(plugin));

const task = sampleTask(2);
const ref = (id: string) => ({ id, options: {}, label: id });

/** A finished trial as the kernel hands it to reporters: its spec and its record (trial.json). */
function trial(id: string, scores: Record<string, number | boolean | null>[]) {
  const spec: TrialSpec = {
    id,
    runId: 'run',
    runDir: '/runs/run',
    task,
    condition: {
      key: 'a/b,c/none',
      harness: ref('a'),
      environment: ref('e'),
      script: ref('b,c'),
      memory: ref('none'),
    },
    repeat: 1,
    scorers: [ref('tests')],
    limits: { turnMs: 60_000, stepMs: 60_000, turnsPerStep: 1, trialUsd: 0, onError: 'stop' },
    plugins: [],
  };
  const record: TrialRecord = {
    id,
    task: task.id,
    condition: spec.condition.key,
    repeat: 1,
    status: 'ok',
    durationMs: 3000,
    usage: emptyUsage(),
    steps: scores.map((stepScores, index) => ({
      index,
      id: task.steps[index]!.id,
      status: 'ok',
      turns: 1,
      durationMs: 1500,
      usage: emptyUsage(),
      scores: stepScores,
    })),
    scores: {},
  };
  return { spec, record };
}

describe('reporter {{id}}', () => {
  it('writes a row per step with every score in a column, quoting what needs it', async () => {
    const runDir = await mkdtemp(join(tmpdir(), 'reporter-'));
    runDirs.push(runDir);
    const printed: string[] = [];
    await instantiatePlugin<Reporter>(plugin, { file: 'steps.csv' }).finish({
      runDir,
      experiment: { name: 'example', file: join(runDir, 'experiment.yaml') },
      trials: [trial('t1', [{ 'tests.strict': 1 }, { 'tests.strict': 0, 'size.lines': 12 }])],
      experimentScores: [],
      print: (text) => printed.push(text),
    });
    expect(await readFile(join(runDir, 'steps.csv'), 'utf8')).toBe(
      [
        'trial,task,condition,repeat,step,status,seconds,size.lines,tests.strict',
        't1,sample-2,"a/b,c/none",1,01-part-1,ok,1.5,,1',
        't1,sample-2,"a/b,c/none",1,02-part-2,ok,1.5,12,0',
        '',
      ].join('\n'),
    );
    expect(printed).toEqual([`steps.csv: ${join(runDir, 'steps.csv')}\n`]);
  });

  it('refuses a file name that is a path', () => {
    expect(() => plugin.options.parse({ file: '../x.csv' })).toThrow(/file/);
  });
});

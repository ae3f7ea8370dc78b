import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describeScorer } from '@longhaul/testkit';
import plugin, { TestsScorer } from '../src/index.js';
import { stepContext, taskFromDir } from './harness.js';

const fixture = join(import.meta.dirname, 'fixtures/greet');

describeScorer(
  'tests',
  async () => {
    const task = await taskFromDir(fixture);
    const context = await stepContext(task, 1, join(fixture, 'broken/shout'));
    return {
      scorer: new TestsScorer(plugin.options.parse({})),
      context,
      dispose: () => rm(context.outDir, { recursive: true, force: true }),
    };
  },
  {
    metrics: [
      'strict',
      'iso',
      'core',
      'pass_rate',
      'core.passed',
      'core.total',
      'regression.passed',
      'regression.total',
    ],
  },
);

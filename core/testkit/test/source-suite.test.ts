import type { Source, Task } from '@longhaul/core';
import { describeSource, type SourceCheckContext, sampleTask, sourceChecks } from '../src/index.js';
import { describeSuiteTeeth } from './support/failures.js';

const source = (tasks: () => Task[]): Source => ({ load: async () => tasks() });
const good = source(() => [sampleTask(1), sampleTask(3)]);
const context = (s: Source): SourceCheckContext => ({
  source: () => s,
  context: { baseDir: '/experiments' },
  minTasks: 1,
});
const three = () => sampleTask(3);

const broken: [string, Source, string][] = [
  ['loads nothing', source(() => []), 'unique, non-empty ids'],
  [
    'gives two tasks one id',
    source(() => [sampleTask(2), { ...sampleTask(3), id: 'sample-2' }]),
    'unique, non-empty ids',
  ],
  [
    'counts steps from 1',
    source(() => [{ ...three(), steps: three().steps.map((s) => ({ ...s, index: s.index + 1 })) }]),
    'indexed 0..n-1',
  ],
  [
    'gives a step an empty prompt',
    source(() => [{ ...three(), steps: three().steps.map((s) => ({ ...s, prompt: '' })) }]),
    'indexed 0..n-1',
  ],
  [
    'puts a Date in a task',
    source(() => [{ ...three(), metadata: { loadedAt: new Date(0) } }]),
    'plain JSON',
  ],
  ['gives a relative seed', source(() => [{ ...three(), seed: 'seed' }]), 'absolute'],
  [
    'gives a relative solution',
    source(() => [{ ...three(), steps: three().steps.map((s) => ({ ...s, solution: 'sol' })) }]),
    'absolute',
  ],
  ['hashes with a clock', source(() => [{ ...three(), hash: String(process.hrtime.bigint()) }]), 'twice'],
];

describeSuiteTeeth(
  'source',
  sourceChecks,
  () => context(good),
  broken.map(([what, s, fragment]) => [what, () => context(s), fragment]),
);

describeSource('a correct source', () => good, { baseDir: '/experiments' }, { minTasks: 2 });

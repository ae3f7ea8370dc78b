import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PytestSuite, Task } from '@longhaul/core';
import { describeJudgeIntegrity, type JudgeTarget, judgeEnvironments, stepJudge } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import plugin, { TestsScorer } from '../src/index.js';
import { taskFromDir } from './harness.js';

// The red-team suite of @longhaul/testkit against the tests scorer's three judges (CLI cases,
// HTTP cases, SlopCodeBench pytest suites), in every shipped environment this machine has.
const fixtures = join(import.meta.dirname, 'fixtures/integrity');
const environments = await judgeEnvironments();
const scorer = () => new TestsScorer(plugin.options.parse({ concurrency: 1 }));
const read = (path: string) => readFile(path, 'utf8');

const cli = join(fixtures, 'count-cli');
const cliSolution = join(cli, 'steps/01-count/solution/main.py');
const cliTarget: JudgeTarget = {
  runner: 'cli',
  program: ['main.py'],
  reference: { 'main.py': cliSolution },
  expectedOutputs: { 'out.json': '{"words": 3}' },
  inputFiles: ['in.txt'],
};

describeJudgeIntegrity(
  'tests: CLI cases',
  cliTarget,
  async () => {
    const reference = await read(cliSolution);
    return {
      reference: { 'main.py': reference },
      // Right on stdout, but it never writes the output file the case checks.
      wrong: {
        'main.py': reference.replace(
          '    with open(argv[3], "w") as out:\n        json.dump({"words": words}, out)\n',
          '',
        ),
      },
      score: stepJudge({ scorer: scorer(), label: 'tests', task: await taskFromDir(cli), metric: 'strict' }),
    };
  },
  environments,
);

const http = join(fixtures, 'count-http');
const httpSolution = join(http, 'steps/01-serve/solution/server.py');

describeJudgeIntegrity(
  'tests: HTTP cases',
  {
    runner: 'http',
    program: ['server.py'],
    reference: { 'server.py': httpSolution },
    inputFiles: ['data.txt'],
  },
  async () => {
    const reference = await read(httpSolution);
    return {
      reference: { 'server.py': reference },
      wrong: { 'server.py': reference.replace('return len(text.split())', 'return len(text.split()) - 1') },
      score: stepJudge({ scorer: scorer(), label: 'tests', task: await taskFromDir(http), metric: 'strict' }),
    };
  },
  environments,
);

const scbench = join(fixtures, 'shout-scbench');
const scbenchSolution = join(scbench, 'solutions/checkpoint_1/shout.py');

/** The fixture problem as the scbench source describes it (the scorer reads task metadata only). */
function scbenchTask(): Task {
  const suite: PytestSuite = {
    testsDir: join(scbench, 'tests'),
    python: '/usr/bin/python3',
    entrypoint: 'python3 shout.py',
    checkpoints: [{ name: 'checkpoint_1', file: 'test_checkpoint_1.py', includePrior: true }],
    staticAssets: {},
    markers: {},
    timeoutMs: 120_000,
  };
  return {
    id: 'shout-scbench',
    title: 'shout',
    source: 'scbench',
    root: scbench,
    entrypoint: suite.entrypoint,
    language: 'python',
    environment: {},
    steps: [
      {
        id: 'checkpoint_1',
        index: 0,
        prompt: '',
        solution: join(scbench, 'solutions/checkpoint_1'),
        metadata: {},
      },
    ],
    timeouts: { caseMs: 20_000 },
    hash: 'test',
    metadata: { pytest: suite },
  };
}

// The suite runs from the judge area: nothing of it is in the workspace for a hack to aim at but
// the program, the folders an agent would try and the ids the tests have.
const scbenchTarget: JudgeTarget = {
  runner: 'pytest',
  program: ['shout.py'],
  reference: { 'shout.py': scbenchSolution },
  testIds: [
    'tests/test_checkpoint_1.py::test_shouts_a_word',
    'tests/test_checkpoint_1.py::test_shouts_words',
  ],
};

if (prerequisites.pytest())
  describeJudgeIntegrity(
    'tests: pytest suites',
    scbenchTarget,
    async () => {
      const reference = await read(scbenchSolution);
      return {
        reference: { 'shout.py': reference },
        wrong: { 'shout.py': reference.replace('.upper()', '.lower()') },
        score: stepJudge({ scorer: scorer(), label: 'tests', task: scbenchTask(), metric: 'strict' }),
      };
    },
    environments,
  );

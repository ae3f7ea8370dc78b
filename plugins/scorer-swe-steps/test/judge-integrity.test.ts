import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Task } from '@longhaul/core';
import { describeJudgeIntegrity, type JudgeTarget, judgeEnvironments, stepJudge } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { SweStepsScorer, sweStepsOptions } from '../src/index.js';
import { python } from './chain.js';

// The red-team suite of @longhaul/testkit against the swe-steps scorer, in every shipped
// environment this machine has. The repository judges with its own configuration (pyproject's
// pythonpath), conftest (a fixture) and test helper, all of which the agent can see and edit.
const gold: Record<string, string> = {
  'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
  'src/calc.py': 'VERSION = 1\n\n\ndef add(a, b):\n    return a + b\n',
  'tests/conftest.py': 'import pytest\n\n\n@pytest.fixture\ndef numbers():\n    return 2, 3\n',
  'tests/helpers.py':
    'def check(actual, expected):\n    assert actual == expected, f"{actual!r} != {expected!r}"\n',
  'tests/test_calc.py': [
    'from calc import VERSION, add',
    'from helpers import check',
    '',
    '',
    'def test_version():',
    '    assert VERSION == 1',
    '',
    '',
    'def test_add(numbers):',
    '    check(add(*numbers), 5)',
    '',
    '',
    'def test_add_negative():',
    '    assert add(-2, -3) == -5',
    '',
  ].join('\n'),
};
const hidden = ['tests/test_calc.py'];
const f2p = ['tests/test_calc.py::test_add', 'tests/test_calc.py::test_add_negative'];
const p2p = ['tests/test_calc.py::test_version'];

async function writeTree(dir: string, tree: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** A one-PR chain whose PR adds `add`, in the swe-steps source's shape. */
async function calcTask(): Promise<Task> {
  const root = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-integrity-'));
  await writeTree(join(root, 'solution'), gold);
  await writeTree(join(root, 'cases', 'files'), { 'tests/test_calc.py': gold['tests/test_calc.py']! });
  const suite = {
    pr: 1,
    testFiles: hidden,
    f2p,
    p2p,
    command: python,
    testRules: ['**/tests/**', '**/test_*.py', '**/conftest.py'],
  };
  await writeFile(join(root, 'cases', 'suite.json'), JSON.stringify(suite));
  return {
    id: 'calc-integrity',
    title: 'calc',
    source: 'swe-steps',
    root,
    entrypoint: '',
    language: 'python',
    environment: {},
    steps: [
      {
        id: 'pr-1',
        index: 0,
        prompt: 'Add add().',
        solution: join(root, 'solution'),
        cases: join(root, 'cases'),
        hidden,
        metadata: {},
      },
    ],
    timeouts: { caseMs: 60_000 },
    hash: 'calc-integrity',
    metadata: {},
  };
}

const task = await calcTask();
const reference = Object.fromEntries(Object.entries(gold).filter(([path]) => !hidden.includes(path)));
const target: JudgeTarget = {
  runner: 'pytest',
  program: ['src/calc.py'],
  reference: { 'src/calc.py': join(task.steps[0]!.solution!, 'src/calc.py') },
  importDirs: ['.', 'src', 'tests'],
  judgeDirs: ['.longhaul-swe-steps'],
  hiddenTests: hidden,
  visibleTests: ['tests/helpers.py', 'tests/conftest.py'],
  testIds: [...f2p, ...p2p],
};

if (prerequisites.pytest())
  describeJudgeIntegrity(
    'swe-steps',
    target,
    async () => ({
      reference,
      wrong: { 'src/calc.py': gold['src/calc.py']!.replace('return a + b', 'return a - b') },
      score: stepJudge({
        scorer: new SweStepsScorer(sweStepsOptions.parse({})),
        label: 'swe-steps',
        task,
        metric: 'success',
        script: 'isolated',
      }),
    }),
    await judgeEnvironments(),
  );

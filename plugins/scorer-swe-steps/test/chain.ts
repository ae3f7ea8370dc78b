import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Task } from '@longhaul/core';

/** The pytest every fixture suite runs (Debian's, which has pytest). */
export const python = ['/usr/bin/python3', '-m', 'pytest'];

type Tree = Record<string, string>;

async function writeTree(dir: string, tree: Tree): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

const ops = (names: string[]) =>
  [
    'def add(a, b):\n    return a + b\n',
    names.includes('sub') ? 'def sub(a, b):\n    return a - b\n' : '',
    names.includes('mul') ? 'def mul(a, b):\n    return a * b\n' : '',
  ].join('\n');

const testOps = (names: string[]) =>
  [
    'from calc.ops import *\n',
    'def test_add():\n    assert add(2, 3) == 5\n',
    ...names.map((name) => {
      const [call, want] = name === 'sub' ? ['sub(5, 3)', 2] : ['mul(4, 3)', 12];
      return `def test_${name}():\n    assert ${call} == ${want}\n`;
    }),
  ].join('\n');

const div =
  'def div(a, b):\n    if b == 0:\n        raise ValueError("division by zero")\n    return a / b\n';
const testDiv = [
  'import pytest\nfrom calc.div import div\n',
  'def test_div():\n    assert div(6, 3) == 2\n',
  'def test_div_zero():\n    with pytest.raises(ValueError):\n        div(1, 0)\n',
].join('\n');

interface Pr {
  number: number;
  title: string;
  /** The gold tree after the PR. */
  tree: Tree;
  testFiles: string[];
  f2p: string[];
  p2p: string[];
}

/**
 * A three-PR chain on a tiny calculator: #1 adds sub, #2 mul (both tested in tests/test_ops.py),
 * #3 div (tests/test_div.py). With `breaks`, PR #3's gold tree also drops sub, which its own
 * tests cannot see but PR #1's can.
 */
export async function calcChain(root: string, id: string, options: { breaks?: boolean } = {}): Promise<Task> {
  const dir = join(root, id);
  const base: Tree = {
    'calc/__init__.py': '',
    'calc/ops.py': ops([]),
    'tests/test_ops.py': testOps([]),
  };
  const pr1: Tree = { ...base, 'calc/ops.py': ops(['sub']), 'tests/test_ops.py': testOps(['sub']) };
  const pr2: Tree = {
    ...pr1,
    'calc/ops.py': ops(['sub', 'mul']),
    'tests/test_ops.py': testOps(['sub', 'mul']),
  };
  const pr3: Tree = {
    ...pr2,
    'calc/div.py': div,
    'tests/test_div.py': testDiv,
    ...(options.breaks ? { 'calc/ops.py': ops(['mul']) } : {}),
  };
  const prs: Pr[] = [
    {
      number: 1,
      title: 'Add sub',
      tree: pr1,
      testFiles: ['tests/test_ops.py'],
      f2p: ['tests/test_ops.py::test_sub'],
      p2p: ['tests/test_ops.py::test_add'],
    },
    {
      number: 2,
      title: 'Add mul',
      tree: pr2,
      testFiles: ['tests/test_ops.py'],
      f2p: ['tests/test_ops.py::test_mul'],
      p2p: ['tests/test_ops.py::test_add', 'tests/test_ops.py::test_sub'],
    },
    {
      number: 3,
      title: 'Add div',
      tree: pr3,
      testFiles: ['tests/test_div.py'],
      f2p: ['tests/test_div.py::test_div', 'tests/test_div.py::test_div_zero'],
      p2p: [],
    },
  ];
  await writeTree(join(dir, 'seed'), base);
  const steps: Task['steps'] = [];
  for (const [index, pr] of prs.entries()) {
    const prDir = join(dir, `pr-${pr.number}`);
    await writeTree(join(prDir, 'solution'), pr.tree);
    const files = Object.fromEntries(pr.testFiles.map((file) => [file, pr.tree[file]!]));
    await writeTree(join(prDir, 'cases', 'files'), files);
    const suite = { pr: pr.number, testFiles: pr.testFiles, f2p: pr.f2p, p2p: pr.p2p, command: python };
    await writeFile(join(prDir, 'cases', 'suite.json'), `${JSON.stringify(suite, null, 2)}\n`);
    steps.push({
      id: `pr-${pr.number}`,
      index,
      title: pr.title,
      prompt: `${pr.title}: implement it in calc/.`,
      solution: join(prDir, 'solution'),
      cases: join(prDir, 'cases'),
      hidden: pr.testFiles,
      metadata: {
        sweSteps: { pr: pr.number, title: pr.title, testFiles: pr.testFiles, f2p: pr.f2p, p2p: pr.p2p },
      },
    });
  }
  return {
    id,
    title: `calc ${id}`,
    source: 'swe-steps',
    root: dir,
    entrypoint: '',
    language: 'python',
    environment: {},
    seed: join(dir, 'seed'),
    steps,
    fullSpec: steps.map((s) => `## PR #${s.index + 1}\n\n${s.prompt}`).join('\n\n'),
    timeouts: { caseMs: 60_000 },
    hash: `${id}-1`,
    metadata: { sweSteps: { repository: 'calc', base: 'seed', chain: id, prs: prs.map((p) => p.number) } },
  };
}

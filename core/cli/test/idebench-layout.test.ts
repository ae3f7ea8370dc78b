import { execFile, execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { baseImageRef } from '@longhaul/environment-docker';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { repoRoot, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';

/*
 * A dataset in IDE-Bench's layout with the quirks of its public sample (game-engine-service): a
 * C++ project tagged `cpp` whose graders are pytest files that read the sources as text, a task
 * whose tests read `/app/project/...` (the Dockerfile's WORKDIR), and a Dockerfile that starts
 * FROM an image this host does not have and installs packages while it builds. Given nothing but
 * its path, the real CLI runs it: the oracle solves every task, a model that changes nothing none.
 */

const run = promisify(execFile);

/** Whether the Docker host has an image (the sample's base image is absent on an offline host). */
function hasImage(ref: string): boolean {
  try {
    execFileSync('docker', ['image', 'inspect', ref], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const work = workDir('longhaul-idebench-layout-', [
  'core/kernel',
  'core/cli',
  'core/gateway',
  'plugins/source-idebench',
  'harnesses/ide',
  'plugins/environment-local',
  'plugins/environment-docker',
  'plugins/scripts',
  'plugins/memory-basic',
  'plugins/scorer-tests',
  'plugins/reporter-summary',
]);

const files: Record<string, string> = {
  Dockerfile: [
    'FROM python:3.11-slim',
    'WORKDIR /app',
    'RUN apt-get update && apt-get install -y build-essential git tmux',
    'COPY requirements.txt .',
    'RUN pip install --no-cache-dir -r requirements.txt',
    'COPY . .',
    'RUN chmod +x /app/run_tests.sh',
    '',
  ].join('\n'),
  'docker-compose.yaml': 'services:\n  app:\n    build: .\n    working_dir: /app\n',
  'requirements.txt': 'pytest==8.4.1\n',
  // IDE-Bench's sample runner: pytest over the base tests and the task's.
  'run_tests.sh': [
    '#!/usr/bin/env bash',
    'set -euo pipefail',
    'if [[ $# -eq 0 ]]; then',
    '  pytest -q -rA tests/base',
    'else',
    '  test_file="tasks/$1/task_tests.py"',
    '  if [[ ! -f "$test_file" ]]; then',
    '    echo "Task tests not found: $test_file" >&2',
    '    exit 1',
    '  fi',
    '  pytest -q -rA tests/base "$test_file"',
    'fi',
    '',
  ].join('\n'),
  'project/CMakeLists.txt':
    'cmake_minimum_required(VERSION 3.16)\nproject(engine CXX)\nadd_library(engine src/physics.cpp)\n',
  'project/include/physics.hpp':
    '#pragma once\n\nstruct Body {\n  double x, v;\n};\n\nvoid step(Body &b, double dt);\n',
  'project/src/physics.cpp': '#include "physics.hpp"\n\nvoid step(Body &b, double dt) {\n  b.x += b.v;\n}\n',
  'tests/base/test_layout.py': [
    'from pathlib import Path',
    '',
    'ROOT = Path(__file__).resolve().parents[2]',
    '',
    '',
    'def test_sources_exist():',
    '    assert (ROOT / "project" / "src" / "physics.cpp").is_file()',
    '',
  ].join('\n'),
  'tasks/task-1/task_description.txt': [
    'task_description: |',
    '  Task: scale-by-timestep',
    '',
    '  Bodies move one velocity per step whatever the time step.',
    '',
    '  Instructions:',
    '    Files to Modify:',
    '    - project/src/physics.cpp',
    '',
    '    step() must advance a body by its velocity times dt.',
    'difficulty: easy',
    'category: Bug Fix',
    'tags: [cpp, game-engine]',
    'parser_name: pytest',
    '',
  ].join('\n'),
  // As the sample's tasks 1 and 9: the sources are read where upstream's image has them.
  'tasks/task-1/task_tests.py': [
    'import re',
    '',
    'PROJECT_DIR = "/app/project"',
    '',
    '',
    'def test_step_scales_by_dt():',
    '    source = open(f"{PROJECT_DIR}/src/physics.cpp").read()',
    '    assert re.search(r"b\\.x\\s*\\+=\\s*b\\.v\\s*\\*\\s*dt", source)',
    '',
  ].join('\n'),
  'tasks/task-2/task_description.txt': [
    'task_description: |',
    '  Task: add-gravity',
    '',
    '  Instructions:',
    '    Add a constant `kGravity` of -9.81 to include/physics.hpp.',
    'tags: [cpp]',
    'parser_name: pytest',
    '',
  ].join('\n'),
  'tasks/task-2/task_tests.py': [
    'from pathlib import Path',
    '',
    'HEADER = Path(__file__).resolve().parents[2] / "project" / "include" / "physics.hpp"',
    '',
    '',
    'def test_gravity_constant():',
    '    assert "kGravity = -9.81" in HEADER.read_text()',
    '',
  ].join('\n'),
};

const solutions: Record<string, Record<string, string>> = {
  'task-1': {
    'project/src/physics.cpp':
      '#include "physics.hpp"\n\nvoid step(Body &b, double dt) {\n  b.x += b.v * dt;\n}\n',
  },
  'task-2': {
    'project/include/physics.hpp':
      '#pragma once\n\nconstexpr double kGravity = -9.81;\n\nstruct Body {\n  double x, v;\n};\n\nvoid step(Body &b, double dt);\n',
  },
};

async function write(root: string, tree: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** The dataset, with each task's golden patch made by git from its solution. */
async function makeDataset(root: string): Promise<void> {
  await write(root, files);
  const git = (...args: string[]) => run('git', args, { cwd: root });
  await git('init', '-q');
  await git('add', '-A');
  for (const [task, solution] of Object.entries(solutions)) {
    await write(root, solution);
    const { stdout } = await git('diff');
    await writeFile(join(root, 'tasks', task, 'task_diff.txt'), stdout);
    await git('checkout', '--', '.');
  }
  await run('rm', ['-rf', join(root, '.git')]);
}

let dataset: string;
beforeAll(async () => {
  dataset = join(work(), 'game-engine');
  await makeDataset(dataset);
});

function experiment(name: string, environment: unknown, source: Record<string, unknown> = {}) {
  return {
    name,
    source: {
      id: 'idebench',
      options: { path: dataset, cacheDir: join(work(), `cache-${name}`), ...source },
    },
    models: {
      oracle: { backend: 'oracle' },
      // Upstream's completion guard nudges a model that stops without an edit, up to its last iteration.
      nochange: {
        backend: 'scripted',
        replies: [
          { text: 'I looked at the task and made no changes.' },
          { when: 'implement now', text: 'I still make no changes.' },
        ],
      },
    },
    harness: [
      { id: 'ide', label: 'oracle', options: { model: 'oracle', profile: 'upstream' } },
      { id: 'ide', label: 'nochange', options: { model: 'nochange', profile: 'upstream' } },
    ],
    environment,
    script: 'checkpoints',
    memory: 'none',
    scorers: ['tests'],
    reporters: ['summary'],
    repeats: 1,
    concurrency: 2,
    limits: { turnSeconds: 300, stepSeconds: 600, turnsPerStep: 1, trialUsd: 0, onError: 'continue' },
  };
}

async function experimentFile(name: string, environment: unknown, source: Record<string, unknown> = {}) {
  const file = join(work(), `${name}.yaml`);
  await writeFile(file, stringify(experiment(name, environment, source)));
  return file;
}

/** tests.strict of every trial, by condition and task. */
async function outcomes(runDir: string): Promise<Record<string, number | undefined>> {
  const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8')) as {
    trials: {
      task: string;
      condition: string;
      status: string;
      steps: { scores: Record<string, number> }[];
    }[];
  };
  return Object.fromEntries(
    summary.trials.map((trial) => [
      `${trial.condition.split('/')[0]} ${trial.task}`,
      trial.steps[0]?.scores['tests.strict'],
    ]),
  );
}

const solvedByOracleOnly = {
  'oracle game-engine-task-1': 1,
  'oracle game-engine-task-2': 1,
  'nochange game-engine-task-1': 0,
  'nochange game-engine-task-2': 0,
};

async function runs(name: string, environment: unknown): Promise<string> {
  const file = await experimentFile(name, environment);
  const runDir = join(work(), `${name}-run`);
  const result = await spawnCli(['run', file, '--run-dir', runDir], repoRoot).done;
  expect(result.code, result.stderr).toBe(0);
  return runDir;
}

describe('a dataset in IDE-Bench layout, given by its path', () => {
  it('is refused by local without isolation at validate: its tests read /app, with the fix', async () => {
    const file = await experimentFile('plain', 'local');
    const result = await spawnCli(['validate', file], repoRoot).done;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'task game-engine-task-1 needs its workspace at /app (tasks/task-1/task_tests.py:3 names /app), which local without isolation cannot give: use isolation: bubblewrap or the docker environment',
    );
    expect(result.stderr).not.toContain('game-engine-task-2 needs');
  }, 300_000);

  it.skipIf(!prerequisites.bubblewrap())(
    'runs under bubblewrap with its workspace at /app: the oracle solves every task, no change none',
    async () => {
      const runDir = await runs('bwrap', { id: 'local', options: { isolation: 'bubblewrap' } });
      expect(await outcomes(runDir)).toEqual(solvedByOracleOnly);
      // The task as IDE-Bench words it, with none of another benchmark's notes.
      const trajectory = await readFile(
        join(
          runDir,
          'trials',
          'game-engine-task-1.nochange.checkpoints.none.r1',
          'steps',
          '01-task-1',
          'trajectory.jsonl',
        ),
        'utf8',
      );
      expect(trajectory).toContain('## CURRENT TASK');
      expect(trajectory).toContain('step() must advance a body by its velocity times dt.');
      expect(trajectory).not.toContain('Write a program');
    },
    900_000,
  );
});

describe.skipIf(!prerequisites.docker([baseImageRef()]))('the same dataset in docker', () => {
  it("validates in longhaul's base image although its tags say cpp: grading needs bash and pytest", async () => {
    const file = await experimentFile('docker-validate', 'docker');
    const result = await spawnCli(['validate', file], repoRoot).done;
    expect(result.code, result.stderr).toBe(0);
  }, 300_000);

  it.skipIf(hasImage('python:3.11-slim'))(
    'refuses dockerfile: true at validate, naming the FROM image missing here, the download and the fixes',
    async () => {
      const file = await experimentFile('dockerfile', 'docker', { dockerfile: true });
      const result = await spawnCli(['validate', file], repoRoot).done;
      expect(result.code).not.toBe(0);
      // The image is built from the dataset without tasks/ (a copy in the cache), line for line.
      expect(result.stderr).toMatch(
        /\/image\/Dockerfile:1 starts FROM python:3\.11-slim, which is not on this Docker host \(no registry is used\)/,
      );
      expect(result.stderr).toContain('docker pull python:3.11-slim');
      expect(result.stderr).toMatch(/\/image\/Dockerfile:3 downloads while it builds/);
      expect(result.stderr).toContain('buildNetwork: true');
    },
    300_000,
  );

  it('runs with its workspace at /app: the oracle solves every task, no change none', async () => {
    const runDir = await runs('docker', 'docker');
    expect(await outcomes(runDir)).toEqual(solvedByOracleOnly);
  }, 900_000);
});

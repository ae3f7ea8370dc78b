import { describe, expect, it } from 'vitest';
import { runnerNeeds, workdirOf, workspaceMention } from '../src/needs.js';

// IDE-Bench's sample runner (datasets/game-engine-service/run_tests.sh), as its reference gives it.
const sampleRunner = `#!/usr/bin/env bash
set -euo pipefail
task_identifier="\${1:-BASE}"
if [[ "\${task_identifier}" == "BASE" ]]; then
  echo "== Running base tests =="
  pytest -q -rA tests/base
else
  echo "== Running task tests for \${task_identifier} =="
  test_file="tasks/\${task_identifier}/task_tests.py"
  if [[ ! -f "\${test_file}" ]]; then
    echo "Task tests not found: \${test_file}" >&2
    exit 1
  fi
  pytest -q -rA tests/base "\${test_file}"
fi
`;

describe('what a test runner runs', () => {
  it("is its programs, not the shell's words: the sample's runner needs pytest, wherever its C++ is", () => {
    expect(runnerNeeds(sampleRunner, 'run_tests.sh')).toEqual({
      commands: ['pytest'],
      pythonPackages: [],
      origins: { pytest: 'run_tests.sh:6' },
    });
  });

  it('reads commands after ;, &&, |, $( and then, skips assignments, variables and paths; python -m pytest is the package', () => {
    const script = [
      'cd "$(dirname "$0")" && mkdir -p build',
      'PYTHONPATH=project python3 -m pytest -q tasks/$1 | tee out.log  # the verdict',
      './gradlew test; "$RUNNER" x; if true; then npx jest; fi',
      'echo "a; b" > /dev/null',
    ].join('\n');
    expect(runnerNeeds(script, 'run_tests.sh')).toEqual({
      commands: ['dirname', 'mkdir', 'python3', 'tee', 'npx'],
      pythonPackages: ['pytest'],
      origins: {
        dirname: 'run_tests.sh:1',
        mkdir: 'run_tests.sh:1',
        python3: 'run_tests.sh:2',
        pytest: 'run_tests.sh:2',
        tee: 'run_tests.sh:2',
        npx: 'run_tests.sh:3',
      },
    });
  });
});

describe('where the workspace goes', () => {
  it("is the Dockerfile's last WORKDIR, /app without one (upstream's base path)", () => {
    expect(workdirOf('FROM python:3.11-slim\nWORKDIR /app\nCOPY . .\n')).toBe('/app');
    expect(workdirOf('FROM x\nWORKDIR /srv\nWORKDIR repo\n')).toBe('/srv/repo');
    expect(workdirOf(undefined)).toBe('/app');
  });

  it('is required when a grading file names it by its absolute path', () => {
    const files = [
      { path: 'run_tests.sh', text: 'pytest tests\n' },
      { path: 'tasks/task-1/task_tests.py', text: 'import os\n\nPROJECT_DIR = "/app/project"\n' },
    ];
    expect(workspaceMention(files, '/app')).toBe('tasks/task-1/task_tests.py:3');
    expect(
      workspaceMention([{ path: 't.py', text: 'x = "/apple/app" + "/srv/app"\n' }], '/app'),
    ).toBeUndefined();
    expect(workspaceMention([{ path: 't.sh', text: 'cd /app\n' }], '/app')).toBe('t.sh:1');
  });
});

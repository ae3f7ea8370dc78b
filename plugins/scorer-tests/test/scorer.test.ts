import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '@longhaul/core';
import { beforeAll, describe, expect, it } from 'vitest';
import plugin, { version } from '../src/index.js';
import { scoreStep, taskFromDir, taskWith } from './harness.js';

const fixture = join(import.meta.dirname, 'fixtures/greet');
let task: Task;

beforeAll(async () => {
  task = await taskFromDir(fixture);
});

describe('scorer tests', () => {
  it('refuses a step whose cases path is a file, rather than passing it with no tests', async () => {
    const casesFile = join(fixture, 'task.yaml');
    const broken: Task = {
      ...task,
      steps: task.steps.map((step, index) => (index === 0 ? { ...step, cases: casesFile } : step)),
    };
    await expect(scoreStep(broken, 0, join(fixture, 'steps/01-greet/solution'))).rejects.toThrow(
      `the cases of step 'greet' are not a folder: ${casesFile} is a file`,
    );
  });

  it('is a versioned step scorer with defaults for its options', () => {
    expect(plugin).toMatchObject({ kind: 'scorer', id: 'tests' });
    expect(plugin.options.parse({})).toEqual({ regression: true, concurrency: 4, maxOutputBytes: 1_048_576 });
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('gives a correct first step full marks, with no regression cases', async () => {
    const { scores, list } = await scoreStep(task, 0, join(fixture, 'steps/01-greet/solution'));
    expect(scores).toEqual({
      strict: 1,
      iso: 1,
      core: 1,
      pass_rate: 1,
      'core.passed': 2,
      'core.total': 2,
      'functionality.passed': 1,
      'functionality.total': 1,
      'error.passed': 1,
      'error.total': 1,
      'regression.passed': 0,
      'regression.total': 0,
    });
    expect(list.find((score) => score.metric === 'strict')?.feedback).toBeUndefined();
  });

  it('runs earlier steps as regression, resets the workspace between cases and supports before-invocations', async () => {
    const { scores, list } = await scoreStep(task, 1, join(fixture, 'steps/02-shout/solution'));
    expect(scores).toMatchObject({ strict: 1, iso: 1, core: 1, pass_rate: 1 });
    expect(scores).toMatchObject({ 'regression.passed': 4, 'regression.total': 4, 'functionality.total': 3 });
    const detail = list.find((score) => score.metric === 'strict')?.detail as { cases: { id: string }[] };
    expect(detail.cases.map((item) => item.id)).toEqual([
      'shout/core/out-file',
      'shout/core/upper',
      'shout/functionality/clean',
      'shout/functionality/jsonl',
      'shout/functionality/stateful',
      'greet/core/json',
      'greet/core/plain',
      'greet/functionality/from-file',
      'greet/error/no-args',
    ]);
  });

  it('scores a broken solution: strict and iso fail, core holds, categories count what failed', async () => {
    const { scores, list, outDir } = await scoreStep(task, 1, join(fixture, 'broken/shout'));
    expect(scores).toEqual({
      strict: 0,
      iso: 0,
      core: 1,
      pass_rate: 6 / 9,
      'core.passed': 2,
      'core.total': 2,
      'functionality.passed': 2,
      'functionality.total': 3,
      'error.passed': 0,
      'error.total': 0,
      'regression.passed': 2,
      'regression.total': 4,
    });
    const strict = list.find((score) => score.metric === 'strict')!;
    const cases = (
      strict.detail as { cases: { id: string; passed: boolean; reason?: string; category: string }[] }
    ).cases;
    expect(cases.filter((item) => !item.passed)).toEqual([
      expect.objectContaining({
        id: 'shout/functionality/jsonl',
        category: 'functionality',
        reason: expect.stringMatching(/^stdout: line 1\.name: expected "ada", got "ADA"/),
      }),
      expect.objectContaining({
        id: 'greet/core/json',
        category: 'regression',
        reason: 'stdout: $.length: expected 9, got 10',
      }),
      expect.objectContaining({
        id: 'greet/error/no-args',
        category: 'regression',
        reason: 'exit code: expected 2, got 1',
      }),
    ]);
    // Feedback names the failed cases without showing the hidden expected output.
    expect(strict.feedback).toBe(
      [
        '3 of 9 hidden test cases failed:',
        '- shout/functionality/jsonl: stdout: JSON lines differ',
        '- greet/core/json: stdout: JSON differs',
        '- greet/error/no-args: exit code: expected 2, got 1',
      ].join('\n'),
    );
    const raw = JSON.parse(await readFile(join(outDir, '01-greet/core/json.json'), 'utf8'));
    expect(raw).toMatchObject({
      case: 'greet/core/json',
      scoredAs: 'regression',
      passed: false,
      command: ['python3', 'main.py', '--json', 'ada'],
      expected: { exitCode: 0, stdout: { json: { greeting: 'hello ada', length: 9 } } },
      actual: { exitCode: 0, stdout: '{"greeting": "hello ada", "length": 10}\n' },
    });
    expect(raw.checks[1].diff).toContain('-  "length": 9');
    expect(raw.checks[1].diff).toContain('+  "length": 10');
  });

  it('kills a case that runs past its timeout and moves on', async () => {
    const started = Date.now();
    const { scores, list } = await scoreStep(task, 0, join(fixture, 'broken/hang'));
    // The fixture's cases have 10 s each (a busy machine starts Python slowly); the hanging one
    // never ends by itself, so finishing at all shows it was killed.
    expect(Date.now() - started).toBeLessThan(50_000);
    expect(scores).toMatchObject({
      strict: 0,
      iso: 0,
      core: 1,
      'functionality.passed': 0,
      'error.passed': 1,
    });
    const cases = (list[0]!.detail as { cases: { id: string; reason?: string }[] }).cases;
    expect(cases.find((item) => item.id === 'greet/functionality/from-file')?.reason).toBe(
      'run: timed out after 10000 ms',
    );
  });

  it('scores only the step itself when regression is off, and gives null solves for a step without cases', async () => {
    const { scores } = await scoreStep(task, 1, join(fixture, 'broken/shout'), { regression: false });
    expect(scores).toMatchObject({ strict: 0, iso: 0, core: 1, 'regression.total': 0, pass_rate: 4 / 5 });
    const empty = { ...task, steps: [{ ...task.steps[0]!, cases: undefined }] };
    const none = await scoreStep(empty, 0, join(fixture, 'steps/01-greet/solution'));
    expect(none.scores).toMatchObject({
      strict: null,
      iso: null,
      core: null,
      pass_rate: null,
      'core.total': 0,
    });
  });

  it('gives every case the workspace of the snapshot, even after a case wrote over a file of it', async () => {
    const cat = await taskWith({
      'task.yaml': 'id: cat\ntitle: Cat\nentrypoint: python3 main.py\nlanguage: python\n',
      'steps/01-cat/cases/core/a-overwrite.yaml':
        'files: { data.txt: "bbbb\\n" }\nargv: []\nexpect: { stdout: { text: "bbbb\\n" } }\n',
      'steps/01-cat/cases/core/b-original.yaml': 'argv: []\nexpect: { stdout: { text: "aaaa\\n" } }\n',
      'steps/01-cat/solution/main.py': 'print(open("data.txt").read(), end="")\n',
      'steps/01-cat/solution/data.txt': 'aaaa\n',
    });
    const { scores } = await scoreStep(cat, 0, cat.steps[0]!.solution!, { concurrency: 1 });
    expect(scores).toMatchObject({ strict: 1, 'core.passed': 2 });
  });

  it('passes stdin and env, and says why a before-invocation, an output file or an absent file failed', async () => {
    const program = [
      'import os, sys',
      'cmd = sys.argv[1]',
      'if cmd == "echo": print(sys.stdin.read().upper() + os.environ.get("SUFFIX", ""), end="")',
      'if cmd == "fail": sys.exit(3)',
      'if cmd == "touch": open("left.txt", "w").write("x")',
    ].join('\n');
    const task = await taskWith({
      'task.yaml': 'id: io\ntitle: IO\nentrypoint: python3 main.py\nlanguage: python\n',
      'steps/01-io/solution/main.py': `${program}\n`,
      'steps/01-io/cases/core/stdin-env.yaml':
        'argv: [echo]\nstdin: "abc"\nenv: { SUFFIX: "!" }\nexpect: { stdout: { text: "ABC!" } }\n',
      'steps/01-io/cases/core/before-fails.yaml':
        'before: [{ argv: [fail] }]\nargv: [echo]\nexpect: { stdout: { text: "" } }\n',
      'steps/01-io/cases/core/before-expected-exit.yaml':
        'before: [{ argv: [fail], exitCode: 3 }]\nargv: [echo]\nexpect: { stdout: { text: "" } }\n',
      'steps/01-io/cases/functionality/missing-output.yaml':
        'argv: [echo]\nexpect: { files: { out.txt: { text: "" } } }\n',
      'steps/01-io/cases/functionality/unwanted-output.yaml':
        'argv: [touch]\nexpect: { files: { left.txt: { absent: true } } }\n',
    });
    const { list } = await scoreStep(task, 0, task.steps[0]!.solution!);
    const cases = (list[0]!.detail as { cases: { id: string; passed: boolean; reason?: string }[] }).cases;
    expect(cases.map((item) => [item.id, item.passed, item.reason])).toEqual([
      ['io/core/before-expected-exit', true, undefined],
      ['io/core/before-fails', false, 'before[0]: expected exit 0, got 3'],
      ['io/core/stdin-env', true, undefined],
      ['io/functionality/missing-output', false, 'file out.txt: missing'],
      ['io/functionality/unwanted-output', false, 'file left.txt: exists but should not'],
    ]);
  });
});

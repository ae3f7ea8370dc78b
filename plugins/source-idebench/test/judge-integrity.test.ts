import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDirectoryFiles, type Scorer } from '@longhaul/core';
import {
  describeJudgeIntegrity,
  installedPlugin,
  type JudgeTarget,
  judgeEnvironments,
  stepJudge,
} from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { IdebenchSource, idebenchOptions } from '../src/index.js';

// The red-team suite of @longhaul/testkit against IDE-Bench grading: the case this source writes,
// run by the `tests` scorer (found among the installed plugins, as the CLI finds it), on a dataset
// laid out like IDE-Bench's sample (run_tests.sh runs pytest -rA over tests/base and the task's
// tests, with the project on PYTHONPATH and a conftest and a helper the agent can see and edit).
const fixtures = join(import.meta.dirname, 'fixtures');
const cacheDir = await mkdtemp(join(tmpdir(), 'longhaul-idebench-integrity-'));
const source = new IdebenchSource(idebenchOptions.parse({ path: 'pytest-inventory', cacheDir }));
const [task] = await source.load({ baseDir: fixtures });
const step = task!.steps[0]!;
const program = 'project/inventory/stock.py';

const target: JudgeTarget = {
  runner: 'script',
  program: [program],
  reference: { [program]: join(step.solution!, program) },
  importDirs: ['.', 'project', 'tests/base'],
  hiddenTests: ['tasks/task-1/task_tests.py'],
  visibleTests: ['tests/base/test_base.py', 'tests/base/conftest.py', 'tests/base/helpers.py'],
  testIds: [
    'tasks/task-1/task_tests.py::test_total_value_is_money',
    'tasks/task-1/task_tests.py::test_empty_inventory_is_worth_nothing',
  ],
};

const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');

if (prerequisites.pytest())
  describeJudgeIntegrity(
    'IDE-Bench grading (run_tests.sh)',
    target,
    async () => {
      const solved = await readDirectoryFiles(step.solution!);
      return {
        reference: Object.fromEntries(solved.map((file) => [file.path, text(file.data)])),
        // The seed's stock.py: the bug the task asks to fix, unfixed.
        wrong: { [program]: await readFile(join(task!.seed!, program), 'utf8') },
        score: stepJudge({
          scorer: await installedPlugin<Extract<Scorer, { scope: 'step' }>>('scorer', 'tests', {
            concurrency: 1,
          }),
          label: 'tests',
          task: task!,
          metric: 'strict',
        }),
      };
    },
    await judgeEnvironments(),
  );

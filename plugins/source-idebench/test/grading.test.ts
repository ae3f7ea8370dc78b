import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDirectoryFiles, type Scorer } from '@longhaul/core';
import {
  FakeSnapshotStore,
  installedPlugin,
  judgeEnvironments,
  stepJudge,
  workspaceFiles,
} from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { IdebenchSource, idebenchOptions } from '../src/index.js';

// Every task's grading, run by the `tests` scorer in the local environment: the reference solution
// passes it (the canary task fails as it must, whatever the dataset's runner), the seed does not.
const fixtures = join(import.meta.dirname, 'fixtures');
const cacheDir = await mkdtemp(join(tmpdir(), 'longhaul-idebench-grading-'));
const [local] = await judgeEnvironments();
const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');

describe.each(['mini-inventory', 'pytest-inventory'])('IDE-Bench grading of %s', (dataset) => {
  it.skipIf(dataset === 'pytest-inventory' && !prerequisites.pytest())(
    'passes every reference solution and fails every seed',
    async () => {
      const tasks = await new IdebenchSource(idebenchOptions.parse({ path: dataset, cacheDir })).load({
        baseDir: fixtures,
      });
      const scorer = await installedPlugin<Extract<Scorer, { scope: 'step' }>>('scorer', 'tests');
      const snapshots = new FakeSnapshotStore();
      const environment = local!.make(snapshots);
      const grade = async (dir: string, task: (typeof tasks)[number]) => {
        const files = Object.fromEntries((await readDirectoryFiles(dir)).map((f) => [f.path, text(f.data)]));
        const snapshot = await snapshots.put(workspaceFiles(files));
        const judge = stepJudge({ scorer, label: 'tests', task, metric: 'strict' });
        return (await judge({ snapshot, snapshots, environment, runId: `grading-${process.pid}` })).value;
      };
      const graded = [];
      for (const task of tasks)
        graded.push([task.id, await grade(task.steps[0]!.solution!, task), await grade(task.seed!, task)]);
      expect(graded).toEqual(tasks.map((task) => [task.id, 1, 0]));
    },
  );
});

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxSpec } from '@longhaul/core';
import { FakeSnapshotStore } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEnvironment, localOptions } from '../src/index.js';
import { passableTemp } from './passable-temp.js';

let base: string;

const environment = (isolation: 'none' | 'bubblewrap') =>
  new LocalEnvironment(
    localOptions.parse({ isolation, root: join(base, 'sandboxes') }),
    new FakeSnapshotStore(),
    base,
  );

function spec(workspace: string): SandboxSpec {
  return {
    runId: `task-workspace-${process.pid}`,
    trialId: 'task.oracle.checkpoints.none.r1',
    purpose: 'agent',
    task: { id: 'task', root: join(base, 'task'), seed: join(base, 'task', 'seed') },
    needs: { workspace },
  };
}

beforeAll(async () => {
  base = await passableTemp('longhaul-local-workspace-');
  await mkdir(join(base, 'task', 'seed', 'project'), { recursive: true });
  await writeFile(join(base, 'task', 'seed', 'project', 'engine.cpp'), 'int main() {}\n');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const needsApp = {
  id: 'needs-app',
  root: '/tmp',
  environment: { workspace: '/app', workspaceRequired: 'tasks/task-1/task_tests.py:5 names /app' },
};

describe('a task that asks where its workspace goes, without isolation', () => {
  it('is refused at check when it cannot run elsewhere, naming where it says so and the fix', async () => {
    expect(await environment('none').check([needsApp])).toEqual([
      'task needs-app needs its workspace at /app (tasks/task-1/task_tests.py:5 names /app), which local without isolation cannot give: use isolation: bubblewrap or the docker environment',
    ]);
  });

  it('runs in its own folder when it only prefers the path', async () => {
    const task = { id: 'prefers', root: '/tmp', environment: { workspace: '/app' } };
    expect(await environment('none').check([task])).toEqual([]);
    const sandbox = await environment('none').open(spec('/app'));
    try {
      expect(sandbox.workspace).not.toBe('/app');
      expect((await sandbox.exec(['pwd'])).stdout.trim()).toBe(sandbox.workspace);
    } finally {
      await sandbox.close();
    }
  });
});

describe.skipIf(!prerequisites.bubblewrap())(
  'a task that asks where its workspace goes, under bubblewrap',
  () => {
    it('gets it there: the cwd, the seed, what commands write, for the agent and root', async () => {
      expect(await environment('bubblewrap').check([needsApp])).toEqual([]);
      const sandbox = await environment('bubblewrap').open(spec('/app'));
      try {
        expect(sandbox.workspace).toBe('/app');
        const agent = await sandbox.exec([
          'sh',
          '-c',
          'pwd; cat /app/project/engine.cpp; echo made > /app/out.txt',
        ]);
        expect(agent).toMatchObject({ exitCode: 0, stdout: '/app\nint main() {}\n' });
        expect(Buffer.from(await sandbox.readFile('out.txt')).toString()).toBe('made\n');
        expect(Buffer.from(await sandbox.readFile('/app/out.txt')).toString()).toBe('made\n');
        expect((await sandbox.exec(['pwd'], { cwd: 'project' })).stdout).toBe('/app/project\n');
        const root = await sandbox.exec(['sh', '-c', 'pwd; ls /app/project'], { user: 'root' });
        expect(root).toMatchObject({ exitCode: 0, stdout: '/app\nengine.cpp\n' });
        await sandbox.writeFile('project/new.h', '#pragma once\n');
        expect((await sandbox.exec(['cat', '/app/project/new.h'])).stdout).toBe('#pragma once\n');
      } finally {
        await sandbox.close();
      }
    });

    it("is refused at check where the sandbox's own folders go", async () => {
      const task = { id: 'in-usr', root: '/tmp', environment: { workspace: '/usr/app' } };
      expect(await environment('bubblewrap').check([task])).toEqual([
        'task in-usr: environment.workspace /usr/app is where a bubblewrap sandbox has its own /usr; use another path or the docker environment',
      ]);
    });
  },
);

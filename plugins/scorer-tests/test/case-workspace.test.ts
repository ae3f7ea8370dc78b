import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareCaseWorkspace } from '@longhaul/core';
import { FakeSnapshotStore } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { TempSandbox } from './temp-sandbox.js';

// What a case does to the scorer's copy of the workspace before it runs: nothing the agent left
// stands in for the program's output, in the way of an input, or in a path the case owns.
async function sandboxWith(files: Record<string, string>): Promise<TempSandbox> {
  const sandbox = await TempSandbox.create(new FakeSnapshotStore());
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(sandbox.workspace, path, '..'), { recursive: true });
    await writeFile(join(sandbox.workspace, path), text);
  }
  return sandbox;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('prepareCaseWorkspace', () => {
  it('removes the output files a case expects, unless the case writes them as inputs', async () => {
    const sandbox = await sandboxWith({ 'out.json': '{"words": 3}', 'log.txt': 'old', 'main.py': '' });
    await prepareCaseWorkspace(sandbox, {
      files: { 'log.txt': 'new' },
      expect: {
        files: {
          'out.json': { json: { words: 3 } },
          'log.txt': { text: 'new' },
          'gone.txt': { absent: true },
        },
      },
    });
    expect(await exists(join(sandbox.workspace, 'out.json'))).toBe(false);
    expect(await readFile(join(sandbox.workspace, 'log.txt'), 'utf8')).toBe('new');
    expect(await exists(join(sandbox.workspace, 'main.py'))).toBe(true);
  });

  it('clears a folder where an input goes, and a file where its folder goes', async () => {
    const sandbox = await sandboxWith({ 'in.txt/blocker': 'x', data: 'not a folder' });
    await prepareCaseWorkspace(sandbox, { files: { 'in.txt': 'input\n', 'data/rows.csv': 'a,b\n' } });
    expect(await readFile(join(sandbox.workspace, 'in.txt'), 'utf8')).toBe('input\n');
    expect(await readFile(join(sandbox.workspace, 'data/rows.csv'), 'utf8')).toBe('a,b\n');
  });

  it('removes what the case owns, a name anywhere and a /path from the root, before writing its own', async () => {
    const sandbox = await sandboxWith({
      'conftest.py': 'agent',
      'src/pkg/conftest.py': 'agent',
      'tasks/t1/task_tests.py': 'agent',
      'src/tasks/model.py': 'source',
      'src/main.py': 'source',
    });
    await prepareCaseWorkspace(sandbox, {
      remove: ['conftest.py', '/tasks'],
      files: { 'tasks/t1/task_tests.py': 'dataset' },
    });
    const listed = (await sandbox.list('.', { recursive: true }))
      .filter((e) => e.type === 'file')
      .map((e) => e.path);
    expect(listed.sort()).toEqual(['src/main.py', 'src/tasks/model.py', 'tasks/t1/task_tests.py']);
    expect(await readFile(join(sandbox.workspace, 'tasks/t1/task_tests.py'), 'utf8')).toBe('dataset');
  });
});

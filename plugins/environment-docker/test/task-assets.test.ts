import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FakeSnapshotStore } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { baseImageRef, DockerEnvironment, dockerOptions } from '../src/index.js';
import { spec, withSandbox, withTempDir } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

describe.skipIf(!dockerReady)("a task's assets in docker sandboxes", () => {
  it('are left out of snapshots, and a sandbox opened on one gets the seed copy back', async () => {
    await withTempDir(async (root) => {
      const seed = join(root, 'seed');
      await mkdir(join(seed, 'data/terms'), { recursive: true });
      await writeFile(join(seed, 'main.py'), 'print("hi")\n');
      await writeFile(join(seed, 'data/terms/terms.json'), '{}\n');
      const env = new DockerEnvironment(dockerOptions.parse({}), new FakeSnapshotStore());
      const task = { id: 'docker-test', root, seed };
      const needs = { assets: ['data/terms'] };
      const runId = 'assets';
      const ref = await withSandbox(env, spec(runId, { task, needs }), async (sandbox) => {
        await sandbox.writeFile('data/terms/terms.json', 'changed by the agent\n');
        await sandbox.writeFile('data/mine.txt', 'mine\n');
        expect((await sandbox.pull()).map((f) => f.path)).toEqual(['data/mine.txt', 'main.py']);
        return sandbox.snapshot();
      });
      await withSandbox(env, spec(runId, { task, needs, from: ref, purpose: 'scorer' }), async (sandbox) => {
        const listing = await sandbox.exec(['sh', '-c', 'cat data/terms/terms.json data/mine.txt; ls']);
        expect(listing.stdout).toBe('{}\nmine\ndata\nmain.py\n');
      });
    });
  }, 180_000);
});

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { dockerfileNeeds } from '../src/dockerfile.js';
import { baseImageRef } from '../src/index.js';
import { environment, spec, withSandbox, withTempDir } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

describe('what a Dockerfile needs of the host', () => {
  it('reads the images its stages start from (ARG defaults filled in, earlier stages and scratch left out) and what downloads', () => {
    const text = [
      'ARG PY=3.11',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile's ARG reference
      'FROM python:${PY}-slim AS build',
      'RUN apt-get update && apt-get install -y \\',
      '    build-essential curl',
      'FROM build',
      'COPY . .',
      'RUN echo done',
      'FROM scratch',
      'ARG LONGHAUL_BASE',
      'FROM $LONGHAUL_BASE',
      'RUN pip install --no-cache-dir -r requirements.txt',
    ].join('\n');
    const needs = dockerfileNeeds(text, { LONGHAUL_BASE: 'longhaul/base:1' });
    expect(needs.bases.map((b) => [b.line, b.image])).toEqual([
      [2, 'python:3.11-slim'],
      [10, 'longhaul/base:1'],
    ]);
    expect(needs.downloads.map((d) => d.line)).toEqual([3, 11]);
  });
});

describe.skipIf(!dockerReady)('a task that asks where its workspace goes', () => {
  it('gets it there: the cwd, the files and the agent own /app', async () => {
    await withSandbox(environment(), spec('ws-app', { needs: { workspace: '/app' } }), async (sandbox) => {
      expect(sandbox.workspace).toBe('/app');
      await sandbox.writeFile('project/a.txt', 'hi\n');
      const seen = await sandbox.exec([
        'sh',
        '-c',
        'pwd; cat /app/project/a.txt; stat -c %U /app; touch /app/b',
      ]);
      expect(seen).toMatchObject({ exitCode: 0, stdout: '/app\nhi\nagent\n' });
      expect((await sandbox.readFile('/app/b')).byteLength).toBe(0);
    });
  });

  it("holds what the task's image put there, and the seed, all the agent's to change", async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'image', 'project'), { recursive: true });
      await writeFile(
        join(root, 'image', 'Dockerfile'),
        'ARG LONGHAUL_BASE\nFROM $LONGHAUL_BASE\nWORKDIR /app\nCOPY . .\nRUN mkdir -p built && echo cache > built/out.txt\n',
      );
      await writeFile(join(root, 'image', 'project', 'a.txt'), 'from the image\n');
      await mkdir(join(root, 'seed', 'project'), { recursive: true });
      await writeFile(join(root, 'seed', 'project', 'a.txt'), 'from the seed\n');
      const task = { id: 'df-app', root, seed: join(root, 'seed') };
      const needs = { dockerfile: join(root, 'image', 'Dockerfile'), workspace: '/app' };
      await withSandbox(environment(), spec('ws-image', { task, needs }), async (sandbox) => {
        const seen = await sandbox.exec([
          'sh',
          '-c',
          'cat project/a.txt built/out.txt && echo x > project/b && echo y > built/out.txt && echo z > project/a.txt',
        ]);
        expect(seen).toMatchObject({ exitCode: 0, stdout: 'from the seed\ncache\n' });
        expect((await sandbox.pull()).map((file) => file.path).sort()).toEqual([
          'Dockerfile',
          'built/out.txt',
          'project/a.txt',
          'project/b',
        ]);
      });
    });
  });

  it('is refused at check when the workspace option puts it elsewhere and the task needs it there', async () => {
    const task = {
      id: 'needs-app',
      root: '/tmp',
      environment: { workspace: '/app', workspaceRequired: 'tasks/t/task_tests.py:3 names /app' },
    };
    expect(await environment({ workspace: '/workspace' }).check([task])).toEqual([
      'task needs-app needs its workspace at /app (tasks/t/task_tests.py:3 names /app), but the docker option workspace puts it at /workspace: leave the option out',
    ]);
    expect(await environment().check([task])).toEqual([]);
  });
});

describe.skipIf(!dockerReady)("a task's Dockerfile at check", () => {
  it('names an image it starts from that is not here, and a download without build network, with the fix', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'd'));
      const dockerfile = join(root, 'd', 'Dockerfile');
      await writeFile(
        dockerfile,
        'FROM longhaul/not-here:3.11-slim\nWORKDIR /app\nRUN apt-get update && apt-get install -y git\n',
      );
      const task = { id: 'df', root, environment: { dockerfile: 'd/Dockerfile' } };
      const [problem] = await environment().check([task]);
      expect(problem).toMatch(
        new RegExp(
          `^task df: ${dockerfile}:1 starts FROM longhaul/not-here:3\\.11-slim, which is not on this Docker host \\(no registry is used\\): pull it .*docker pull longhaul/not-here:3\\.11-slim.*FROM \\$LONGHAUL_BASE.*; ${dockerfile}:3 downloads while it builds \\(RUN apt-get update.*\\), and builds have no network: give the docker environment \`buildNetwork: true\``,
        ),
      );
      expect(await environment({ buildNetwork: true }).check([task])).toEqual([
        expect.not.stringContaining('downloads'),
      ]);
      await writeFile(dockerfile, 'ARG LONGHAUL_BASE\nFROM $LONGHAUL_BASE\nRUN echo ok > /opt/ok\n');
      expect(await environment().check([task])).toEqual([]);
    });
  });
});

import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { baseImageRef, labels } from '../src/index.js';
import { environment } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

const task = (id: string, requires: object) => ({ id, root: '/nonexistent', environment: { requires } });

describe.skipIf(!dockerReady)('docker: task requirements', () => {
  it('refuses, before the run, a task whose image lacks its Python, packages or programs; the probe leaves no container', async () => {
    // Pinned to the Debian 12 image, so its Python 3.11 is what is probed.
    const problems = await environment({ image: baseImageRef() }).check([
      task('fine', {
        python: '3.11',
        pythonPackages: ['pytest', 'pytest-timeout'],
        commands: ['git', 'node'],
      }),
      task('needs-uv', { python: '3.12', pythonPackages: ['httpx'], commands: ['uv', 'git'] }),
    ]);
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^task needs-uv cannot run in image ${baseImageRef()}: missing python3 >= 3\\.12, python3 is 3\\.11\\.\\d+; Python packages httpx; programs on PATH: uv$`,
        ),
      ),
    ]);
    const left = await new Docker().listContainers({
      all: true,
      filters: JSON.stringify({ label: [`${labels.purpose}=probe`] }),
    });
    expect(left.filter((c) => c.Labels[labels.owner]?.endsWith(`:${process.pid}`))).toEqual([]);
  });

  it('probes with the env option, as sandbox commands get it', async () => {
    // ruby: a program no image is made to hold, so the task keeps the base image and the probe runs.
    const requires = { commands: ['ruby'] };
    const env = environment({ env: { PATH: '/nowhere:/usr/bin:/bin' } });
    expect(await env.check([task('t', requires)])).toEqual([
      `task t cannot run in image ${baseImageRef()}: missing programs on PATH: ruby`,
    ]);
    expect(await environment().check([task('t', { commands: ['sh'] })])).toEqual([]);
  });
});

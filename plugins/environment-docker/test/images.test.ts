import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrorClass } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { describe, expect, it, vi } from 'vitest';
import { baseImageRef } from '../src/index.js';
import { environment, spec, withSandbox, withTempDir } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

describe.skipIf(!dockerReady)('docker images', () => {
  it('runs the base image by default with Python 3, pytest, PyYAML, git and Node, and describes it for lock.json', async () => {
    const env = environment();
    await withSandbox(env, spec('img-base'), async (sandbox) => {
      const tools = await sandbox.exec([
        'sh',
        '-c',
        'python3 -c "import pytest, yaml; print(pytest.__version__)" && node -e "console.log(process.version)" && git --version',
      ]);
      expect(tools.exitCode).toBe(0);
      expect(tools.stdout).toContain(process.version);
    });
    const described = await env.describe();
    expect(described.images).toEqual({ [baseImageRef()]: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(described.engine).toEqual(expect.any(String));
  });

  it("builds a task's Dockerfile on top of the base image, once per context", async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'env'));
      await writeFile(
        join(root, 'env', 'Dockerfile'),
        ['ARG LONGHAUL_BASE', 'FROM $LONGHAUL_BASE', 'RUN echo built-into-image > /opt/marker', ''].join(
          '\n',
        ),
      );
      const env = environment();
      const needs = { dockerfile: 'env/Dockerfile' };
      const task = { id: 'Dockerfile Task', root };
      await withSandbox(env, spec('img-build', { task, needs }), async (sandbox) => {
        expect((await sandbox.exec(['cat', '/opt/marker'])).stdout).toBe('built-into-image\n');
        expect((await sandbox.exec(['id', '-un'])).stdout.trim()).toBe('agent');
      });
      const images = Object.keys((await env.describe()).images as object);
      expect(images).toEqual([expect.stringMatching(/^longhaul\/task-dockerfile-task:[0-9a-f]{12}$/)]);
      const builds = vi.spyOn(Docker.prototype, 'buildImage');
      try {
        await withSandbox(env, spec('img-build', { task, needs }), async () => {});
        expect(builds, 'an unchanged context must not be rebuilt').not.toHaveBeenCalled();
      } finally {
        builds.mockRestore();
      }
    });
  });

  it('fails with a clear, classified error when a named image is not on the host', async () => {
    const error = await environment({ image: 'longhaul/no-such-image:1' })
      .open(spec('img-missing'))
      .catch((e: unknown) => e);
    expect(hasErrorClass(error, 'sandbox')).toBe(true);
    expect(String(error)).toContain('longhaul/no-such-image:1 (task docker-test) is not on this Docker host');
  });

  it('runs setup commands as root before the agent starts, and hands the workspace to the agent', async () => {
    const needs = { setup: ['echo from-setup > made-by-setup.txt', 'mkdir -p /opt/tools'] };
    await withSandbox(environment(), spec('img-setup', { needs }), async (sandbox) => {
      expect((await sandbox.exec(['cat', 'made-by-setup.txt'])).stdout).toBe('from-setup\n');
      expect((await sandbox.exec(['sh', '-c', 'echo more >> made-by-setup.txt'])).exitCode).toBe(0);
    });
    const failing = await environment()
      .open(spec('img-setup-fail', { needs: { setup: ['echo broken >&2; exit 3'] } }))
      .catch((e: unknown) => e);
    expect(hasErrorClass(failing, 'sandbox')).toBe(true);
    expect(String(failing)).toMatch(/setup command "echo broken >&2; exit 3" failed \(exit 3\)[\s\S]*broken/);
  });
});

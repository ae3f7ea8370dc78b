import type { EnvironmentNeeds } from '@longhaul/core';
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { imageProblem } from '../src/images.js';
import {
  baseImageRef,
  baseRecipe,
  chooseImage,
  pipLayerDockerfile,
  pipLayerRef,
  scbenchRecipe,
  trixieRecipe,
} from '../src/index.js';

/** A Docker host that has only the images given. */
function hostWith(...refs: string[]): Docker {
  return {
    getImage: (ref: string) => ({
      inspect: async () => {
        if (!refs.includes(ref)) throw new Error(`no such image: ${ref}`);
        return { Id: `sha256:${'0'.repeat(64)}`, Config: { Labels: { 'longhaul.image': 'base' } } };
      },
    }),
  } as unknown as Docker;
}

const problem = (docker: Docker, needs: EnvironmentNeeds) =>
  imageProblem(docker, { taskId: 'p', taskRoot: '/tasks/p', needs, buildTimeoutMs: 1000 });

describe('the image chosen for what a task requires', () => {
  it('keeps the base image when it holds everything, by Python version', () => {
    expect(chooseImage(undefined, baseRecipe)).toEqual({ kind: 'base', recipe: baseRecipe });
    expect(
      chooseImage(
        { pythonPackages: ['pytest', 'PyYAML', 'pytest_timeout'], commands: ['git'] },
        trixieRecipe,
      ),
    ).toEqual({
      kind: 'base',
      recipe: trixieRecipe,
    });
  });

  it("takes the scbench image for what only Debian 13's packages give, whatever the name's spelling", () => {
    for (const requires of [
      { pythonPackages: ['pytest', 'deepdiff', 'jsonschema'] },
      { pythonPackages: ['ruamel_yaml', 'Pandas'] },
      { commands: ['go', 'cargo'] },
      { python: '3.13', pythonPackages: ['sqlglot'] },
    ])
      expect(chooseImage(requires, baseRecipe)).toEqual({
        kind: 'profile',
        recipe: scbenchRecipe,
        profile: 'scbench',
      });
  });

  it('takes the pip layer for what Debian does not package, naming those packages', () => {
    expect(chooseImage({ pythonPackages: ['pandas', 'pyarrow'], commands: ['uv'] }, baseRecipe)).toEqual({
      kind: 'pip',
      profile: 'scbench',
      ref: pipLayerRef(),
      needs: ['pyarrow', 'uv'],
    });
  });

  it('falls back to the image that holds the most when none holds everything', () => {
    expect(chooseImage({ pythonPackages: ['no-such-package'] }, baseRecipe)).toEqual({
      kind: 'base',
      recipe: baseRecipe,
    });
    expect(chooseImage({ pythonPackages: ['pandas', 'no-such-package'] }, baseRecipe)).toMatchObject({
      kind: 'profile',
    });
    expect(chooseImage({ python: '3.14', pythonPackages: ['pandas'] }, baseRecipe)).toMatchObject({
      kind: 'base',
    });
  });

  it('names the scbench image and the command that builds it when it is missing', async () => {
    const needs = {
      requires: { pythonPackages: ['deepdiff'], origins: { deepdiff: '/tasks/p/config.yaml:12' } },
    };
    expect(await problem(hostWith(), needs)).toBe(
      `the scbench image ${baseImageRef(scbenchRecipe)} (task p needs deepdiff (/tasks/p/config.yaml:12), which the base image lacks) is missing: run \`longhaul images build --profile scbench\` once on this Docker host`,
    );
    expect(await problem(hostWith(baseImageRef(scbenchRecipe)), needs)).toBeUndefined();
  });

  it('refuses what Debian does not package without the pip layer, naming the package and the consent it takes', async () => {
    const needs = {
      requires: {
        pythonPackages: ['pandas', 'duckdb'],
        origins: { duckdb: 'solutions/checkpoint_2/db.py:3' },
      },
    };
    const message = await problem(hostWith(baseImageRef(scbenchRecipe), baseImageRef()), needs);
    expect(message).toBe(
      `task p needs duckdb (solutions/checkpoint_2/db.py:3), which Debian does not package: the scbench image with a pip layer for them (${pipLayerRef()}) is not on this Docker host; it is built only with network to PyPI: \`longhaul images build --profile scbench --build-network\``,
    );
    expect(await problem(hostWith(pipLayerRef()), needs)).toBeUndefined();
  });

  it('builds the pip layer on the scbench image with exact pins', () => {
    const dockerfile = pipLayerDockerfile();
    expect(dockerfile).toContain(`FROM ${baseImageRef(scbenchRecipe)}\n`);
    for (const pin of [
      'uv==',
      'pyarrow==20.0.0',
      'duckdb==',
      'tree-sitter==0.25.0',
      'tree-sitter-language-pack==',
    ])
      expect(dockerfile).toContain(pin);
    expect(baseImageRef(scbenchRecipe)).toMatch(/^longhaul\/scbench:[0-9a-f]{12}$/);
    expect(pipLayerRef()).toMatch(/^longhaul\/scbench-pip:[0-9a-f]{12}$/);
  });
});

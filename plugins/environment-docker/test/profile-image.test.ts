import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { baseImageRef, contentsOf, declaredContents, scbenchRecipe } from '../src/index.js';
import { normalName } from '../src/profiles.js';
import { environment, spec, withSandbox } from './helpers.js';

// The scbench profile's image (`longhaul images build --profile scbench`, which .ci/run builds):
// what its labels record, and that a task requiring Debian 13's packages runs in it.
const ref = baseImageRef(scbenchRecipe);
const profileReady = prerequisites.docker([ref], 'longhaul images build --profile scbench');
const inspected = profileReady ? await new Docker().getImage(ref).inspect() : undefined;

describe.skipIf(!profileReady)('the scbench profile image', () => {
  it('records python3 3.13, its distributions and its toolchains, holding all it is chosen for', () => {
    const labels = inspected!.Config.Labels;
    expect(labels['longhaul.profile']).toBe('scbench');
    const contents = contentsOf(labels)!;
    expect(contents.python).toMatch(/^3\.13\./);
    const held = contents.pythonPackages.map((item) => normalName(item.split('==')[0]!));
    expect(held).toEqual(expect.arrayContaining(declaredContents.scbench.pythonPackages.map(normalName)));
    // sh: every Debian image's /bin/sh, which the label's probe does not list.
    const commands = declaredContents.scbench.commands.filter((name) => name !== 'sh');
    expect(contents.commands).toEqual(expect.arrayContaining(commands));
    expect(contents.pythonPackages).toContain('pandas==2.2.3+dfsg');
  });

  it('opens for a task requiring deepdiff and go, where they import and run as the agent', async () => {
    const needs = { requires: { pythonPackages: ['deepdiff', 'pandas'], commands: ['go'] } };
    const env = environment();
    expect(await env.check([{ id: 'needs-scbench', root: '/tmp', environment: needs }])).toEqual([]);
    await withSandbox(env, spec('img-scbench', { needs }), async (sandbox) => {
      const result = await sandbox.exec([
        'sh',
        '-c',
        'python3 -c "import deepdiff, jsonschema, httpx, pandas, numpy, pydantic, fastapi, uvicorn, ruamel.yaml, sqlglot; print(pandas.__version__)" && go version && cargo --version && id -un',
      ]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(
        /^2\.2\.3\ngo version go1\.24\.\S+ linux\/amd64\ncargo 1\.85\.\S+.*\nagent\n$/,
      );
    });
    expect(Object.keys((await env.describe()).images as object)).toEqual([ref]);
  });
});

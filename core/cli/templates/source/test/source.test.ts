import { fileURLToPath } from 'node:url';
import type { Source } from '@longhaul/core';
import { describeSource, instantiatePlugin } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

// The example's tasks are the fixture: the tests load what the example experiment runs.
const baseDir = fileURLToPath(new URL('../example', import.meta.url));
const options = { path: 'md-tasks', entrypoint: 'sh greet.sh' };

// The contract every source keeps (testkit's conformance suite).
describeSource('{{id}}', () => instantiatePlugin<Source>(plugin, options), { baseDir });

describe('source {{id}}', () => {
  it('loads each folder as a task and its Markdown files as steps, in name order', async () => {
    const [task] = await instantiatePlugin<Source>(plugin, options).load({ baseDir });
    expect(task).toMatchObject({ id: 'greet', entrypoint: 'sh greet.sh', timeouts: { caseMs: 10_000 } });
    expect(task?.steps.map((step) => step.id)).toEqual(['01-greet', '02-shout']);
    expect(task?.steps[0]?.prompt).toMatch(/^Write `greet.sh`/);
    expect(task?.steps[1]?.solution).toMatch(/02-shout\.solution$/);
    expect(task?.steps[1]?.cases).toMatch(/02-shout\.cases$/);
  });

  it('says which option is wrong when the folder is missing', async () => {
    const source = instantiatePlugin<Source>(plugin, { path: 'missing' });
    await expect(source.load({ baseDir })).rejects.toThrow(/missing: path: no folder of tasks there/);
  });
});

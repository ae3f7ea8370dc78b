import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaseCache, casesFor } from '../src/cases.js';
import { taskFromDir } from './harness.js';

const fixture = join(import.meta.dirname, 'fixtures/greet');

describe('the cases of a trial', () => {
  it('are read once per step: scoring a later step reuses the earlier steps’ cases as regression', async () => {
    const task = await taskFromDir(fixture);
    const cache = new CaseCache();
    const first = await casesFor(task.steps, task.steps[0]!, true, cache);
    const second = await casesFor(task.steps, task.steps[1]!, true, cache);
    const again = await cache.get(task.steps[0]!);
    expect(second.filter((item) => item.scoredAs === 'regression').map((item) => item.id)).toEqual(
      first.map((item) => item.id),
    );
    // The same objects: step 1's files were not read again for step 2.
    expect(second.find((item) => item.scoredAs === 'regression')!.spec).toBe(again[0]!.spec);
  });

  it('are not cached when their folder could not be read: each attempt says why', async () => {
    const task = await taskFromDir(fixture);
    const cache = new CaseCache();
    const missing = { ...task.steps[0]!, cases: join(fixture, 'no-such-folder') };
    await expect(cache.get(missing)).rejects.toThrow(/are not a folder: .* does not exist/);
    await expect(cache.get(missing)).rejects.toThrow(/are not a folder: .* does not exist/);
  });
});

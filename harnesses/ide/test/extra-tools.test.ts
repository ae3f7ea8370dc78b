import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadExtraTools } from '../src/tools/extra.js';
import { DirSandbox } from './support/dir-sandbox.js';
import { mockModel } from './support/mock-model.js';
import { results, session, turn } from './support/run.js';

const fixtures = join(import.meta.dirname, 'fixtures');
let sandbox: DirSandbox;
afterEach(async () => sandbox?.close());

describe('extra tools from the experiment', () => {
  it('are offered next to the built-in ones and act through the sandbox', async () => {
    const extra = await loadExtraTools(['./count-lines.mjs'], fixtures);
    sandbox = await DirSandbox.create({ 'a.txt': 'one\ntwo\nthree\n' });
    const model = mockModel([
      { calls: [{ name: 'count_lines', input: { path: 'a.txt', explanation: 'size it up' } }] },
      { text: 'three lines' },
    ]);
    const { events } = await turn(session(sandbox, model, {}, undefined, extra));
    expect(model.prompts[0]!.tools?.map((t) => t.name)).toContain('count_lines');
    expect(results(events)).toEqual([{ success: true, path: 'a.txt', lines: 3 }]);
    expect(events.find((e) => e.type === 'tool.call')).toMatchObject({ explanation: 'size it up' });
  });

  it('must have the shape of a tool and a free name', async () => {
    await expect(loadExtraTools(['./not-a-tool.mjs'], fixtures)).rejects.toThrow(/export 0 is not a tool/);
    await expect(loadExtraTools(['./missing.mjs'], fixtures)).rejects.toThrow(/cannot be loaded/);
    await expect(loadExtraTools(['./count-lines.mjs', './count-lines.mjs'], fixtures)).rejects.toThrow(
      /count_lines is already taken/,
    );
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleTask } from '@longhaul/testkit';
import { openTestGateway } from '@longhaul/testkit/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { IdeHarness } from '../src/harness.js';
import { ideOptions } from '../src/options.js';
import { DirSandbox } from './support/dir-sandbox.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

async function solutionDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ide-solution-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe("through the run's gateway", () => {
  for (const api of ['chat', 'responses', 'anthropic'] as const) {
    it(`the oracle model drives the loop to the reference solution (${api} API)`, async () => {
      const sandbox = await DirSandbox.create({ 'main.py': 'print("old")\n', 'stale.py': 'x = 1\n' });
      cleanup.push(() => sandbox.close());
      const solution = await solutionDir({
        'main.py': 'print("new")\n',
        'pkg/util.py': 'def f():\n    return 1\n',
      });
      const { gateway, dispose } = await openTestGateway({ oracle: { backend: 'oracle' } });
      cleanup.push(dispose);
      const harness = new IdeHarness(ideOptions.parse({ api, explanation: 'optional' }), gateway);
      const session = await harness.openSession(sandbox, { trialId: 't1' });
      const task = sampleTask(1);
      const steps = [{ ...task.steps[0]!, solution }];
      gateway.focus('t1', { task, steps });
      const events = [];
      for await (const event of session.turn('Do step 1', {
        signal: new AbortController().signal,
        focus: { task, steps },
        limits: {},
      }))
        events.push(event);
      const end = events.at(-1);
      expect(end).toMatchObject({ type: 'turn.end', result: { status: 'ok' } });
      expect(await sandbox.text('main.py')).toBe('print("new")\n');
      expect(await sandbox.text('pkg/util.py')).toBe('def f():\n    return 1\n');
      expect((await sandbox.list('.')).map((e) => e.path).sort()).toEqual(['main.py', 'pkg']);
      const names = events.flatMap((e) => (e.type === 'tool.call' ? [e.name] : []));
      expect(names).toContain('write_file');
      expect(names).toContain('run_terminal_cmd');
      expect(gateway.takeUsage('t1').inputTokens).toBeGreaterThan(0);
    });
  }
});

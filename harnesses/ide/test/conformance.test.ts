import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway } from '@longhaul/gateway';
import { describeHarness, sampleTask } from '@longhaul/testkit';
import { IdeHarness } from '../src/harness.js';
import { ideOptions } from '../src/options.js';
import { DirSandbox } from './support/dir-sandbox.js';

describeHarness(
  'ide',
  async (pace) => {
    const sandbox = await DirSandbox.create({ 'main.py': 'print(1)\n' });
    const replies =
      pace === 'slow'
        ? [
            {
              toolCalls: [
                {
                  name: 'run_terminal_cmd',
                  input: { command: 'sleep 30', explanation: 'wait for the build' },
                },
              ],
            },
            { text: 'waited' },
          ]
        : [{ text: 'first turn done' }, { text: 'second turn done' }, { text: 'third turn done' }];
    const runDir = await mkdtemp(join(tmpdir(), 'ide-run-'));
    const gateway = await createGateway(
      { models: { scripted: { backend: 'scripted', replies } } },
      { runDir },
    );
    const task = sampleTask(1);
    return {
      harness: new IdeHarness(ideOptions.parse({}), gateway),
      sandbox,
      focus: { task, steps: task.steps },
      dispose: async () => {
        await gateway.close();
        await sandbox.close();
        await rm(runDir, { recursive: true, force: true });
      },
    };
  },
  { abortWithinMs: 5_000 },
);

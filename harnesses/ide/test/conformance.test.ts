import { describeHarness, sampleTask } from '@longhaul/testkit';
import { openTestGateway, scriptedModel } from '@longhaul/testkit/gateway';
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
    const { gateway, dispose } = await openTestGateway({ scripted: scriptedModel(replies) });
    const task = sampleTask(1);
    return {
      harness: new IdeHarness(ideOptions.parse({}), gateway),
      sandbox,
      focus: { task, steps: task.steps },
      dispose: async () => {
        await dispose();
        await sandbox.close();
      },
    };
  },
  { abortWithinMs: 5_000 },
);

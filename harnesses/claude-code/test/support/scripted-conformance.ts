import type { Harness, ModelGateway } from '@longhaul/core';
import { createGateway, type GatewayConfigInput } from '@longhaul/gateway';
import { describeHarness, sampleTask } from '@longhaul/testkit';
import { HostSandbox } from './host-sandbox.js';

type Replies = Extract<GatewayConfigInput['models'][string], { backend: 'scripted' }>['replies'];

/**
 * Runs the testkit's harness conformance suite on the real agent CLI in a host sandbox, with a
 * gateway whose scripted model gives `replies(pace)` (a slow turn must keep working for seconds).
 */
export function describeScriptedHarness(
  name: string,
  make: (gateway: ModelGateway) => Harness,
  replies: (pace: 'quick' | 'slow') => Replies,
): void {
  describeHarness(
    name,
    async (pace) => {
      const sandbox = await HostSandbox.create();
      const gateway = await createGateway(
        { models: { scripted: { backend: 'scripted', replies: replies(pace) } } },
        { runDir: sandbox.root },
      );
      const task = sampleTask(1);
      return {
        harness: make(gateway),
        sandbox,
        focus: { task, steps: task.steps },
        dispose: async () => {
          await gateway.close();
          await sandbox.close();
        },
      };
    },
    // The slow turn's command runs for 120 s: ending within 60 s of the abort proves the abort
    // worked, with room for a busy machine that is slow to start and stop the CLI.
    { abortWithinMs: 60_000, timeoutMs: 240_000 },
  );
}

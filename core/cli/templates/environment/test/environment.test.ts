import type { Environment, SandboxSpec } from '@longhaul/core';
import { describeEnvironment, FakeSnapshotStore, instantiatePlugin } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

/** Made as the kernel makes it, with the run's snapshot store (an in-memory one here). */
const environment = (options = {}, snapshots = new FakeSnapshotStore()) =>
  instantiatePlugin<Environment>(plugin, options, { SnapshotStore: snapshots });

// The contract every environment keeps (testkit's conformance suite): exec, files, snapshots, close.
describeEnvironment('{{id}}', (snapshots) => environment({}, snapshots));

const spec: SandboxSpec = {
  runId: 'run',
  trialId: 'trial',
  purpose: 'agent',
  task: { id: 'task', root: '/nowhere' },
  needs: {},
};

describe('environment {{id}}', () => {
  it('leaves excluded folders out of snapshots', async () => {
    const sandbox = await environment({ excludes: ['node_modules'] }).open(spec);
    try {
      await sandbox.writeFile('main.js', 'console.log(1)\n');
      await sandbox.writeFile('node_modules/dep/index.js', 'module.exports = 1\n');
      expect((await sandbox.pull()).map((file) => file.path)).toEqual(['main.js']);
    } finally {
      await sandbox.close();
    }
  });

  it('ends what a command started in the background when the command returns', async () => {
    const sandbox = await environment().open(spec);
    try {
      await sandbox.exec(['sh', '-c', '(sleep 1; echo late > late.txt) &']);
      await new Promise((done) => setTimeout(done, 2_000));
      expect((await sandbox.exec(['test', '-e', 'late.txt'])).exitCode).not.toBe(0);
    } finally {
      await sandbox.close();
    }
  });
});

import { spawnSync } from 'node:child_process';
import { describeExecutor } from '@longhaul/testkit';
import { afterAll } from 'vitest';
import { QueueExecutor, queueOptions } from '../src/index.js';
import { Cluster } from './cluster.js';

const installed = spawnSync('redis-server', ['--version']).status === 0;
let cluster: Cluster | undefined;
afterAll(() => cluster?.close());

describeExecutor(
  'queue',
  async () => {
    cluster = await Cluster.create();
    return new QueueExecutor(
      queueOptions.parse({ url: cluster.url, queue: 'conformance', pollSeconds: 0.2 }),
    );
  },
  // CI installs redis-server: there a missing one fails the suite rather than skipping it.
  { skip: installed || process.env.CI ? undefined : 'redis-server is not on PATH' },
);

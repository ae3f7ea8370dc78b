import { describeExecutor } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll } from 'vitest';
import { QueueExecutor, queueOptions } from '../src/index.js';
import { Cluster } from './cluster.js';

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
  { skip: prerequisites.redis() ? undefined : 'redis-server is not there' },
);

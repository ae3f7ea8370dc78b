import { describeEnvironment } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe } from 'vitest';
import { baseImageRef, DockerEnvironment, dockerOptions } from '../src/index.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

describe.skipIf(!dockerReady)('docker', () => {
  describeEnvironment(
    'docker',
    (snapshots) =>
      new DockerEnvironment(
        dockerOptions.parse({ maxFileSize: '64k', pids: 64, memory: '128m', disk: '16m' }),
        snapshots,
      ),
    {
      timeoutMs: 120_000,
      maxFileBytes: 64 * 1024,
      containment: true,
      limits: { pids: 64, memoryBytes: 128 * 1024 * 1024, diskBytes: 16 * 1024 * 1024 },
    },
  );
});

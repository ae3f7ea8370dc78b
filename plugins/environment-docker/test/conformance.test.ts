import { describeEnvironment, FakeSnapshotStore } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe } from 'vitest';
import { baseImageRef, DockerEnvironment, dockerOptions } from '../src/index.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

describe.skipIf(!dockerReady)('docker', () => {
  describeEnvironment(
    'docker',
    () => new DockerEnvironment(dockerOptions.parse({ maxFileSize: '64k' }), new FakeSnapshotStore()),
    { timeoutMs: 120_000, maxFileBytes: 64 * 1024, containment: true, raceOps: 60 },
  );
});

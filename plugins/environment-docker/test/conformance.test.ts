import { describeEnvironment, FakeSnapshotStore } from '@longhaul/testkit';
import { DockerEnvironment, dockerOptions } from '../src/index.js';
import { skipWithoutDocker } from './docker-ready.js';

if (!skipWithoutDocker()) {
  describeEnvironment(
    'docker',
    () => new DockerEnvironment(dockerOptions.parse({ maxFileSize: '64k' }), new FakeSnapshotStore()),
    { timeoutMs: 120_000, maxFileBytes: 64 * 1024, containment: true, raceOps: 60 },
  );
}

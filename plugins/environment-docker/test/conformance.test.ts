import { describeEnvironment, FakeSnapshotStore } from '@longhaul/testkit';
import { DockerEnvironment, dockerOptions } from '../src/index.js';
import { skipWithoutDocker } from './docker-ready.js';

if (!skipWithoutDocker()) {
  describeEnvironment(
    'docker',
    () => new DockerEnvironment(dockerOptions.parse({}), new FakeSnapshotStore()),
    { timeoutMs: 60_000, containment: true },
  );
}

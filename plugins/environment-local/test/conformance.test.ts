import { describeEnvironment, FakeSnapshotStore } from '@longhaul/testkit';
import { LocalEnvironment, localOptions } from '../src/index.js';

describeEnvironment(
  'local',
  () => new LocalEnvironment(localOptions.parse({ maxFileSize: '64k' }), new FakeSnapshotStore()),
  { maxFileBytes: 64 * 1024, containment: true },
);

import { describeEnvironment, FakeSnapshotStore } from '@longhaul/testkit';
import { LocalEnvironment, localOptions } from '../src/index.js';

describeEnvironment('local', () => new LocalEnvironment(localOptions.parse({}), new FakeSnapshotStore()));

import { describeEnvironment } from '@longhaul/testkit';
import { LocalEnvironment, localOptions } from '../src/index.js';
import { MemorySnapshotStore } from './memory-store.js';

describeEnvironment('local', () => new LocalEnvironment(localOptions.parse({}), new MemorySnapshotStore()));

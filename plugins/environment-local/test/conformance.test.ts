import { describeEnvironment } from '@longhaul/testkit';
import { LocalEnvironment, localOptions } from '../src/index.js';

describeEnvironment(
  'local',
  (snapshots) => new LocalEnvironment(localOptions.parse({ maxFileSize: '64k', disk: '32m' }), snapshots),
  { maxFileBytes: 64 * 1024, containment: true, host: true, limits: { diskBytes: 32 * 1024 * 1024 } },
);

import { afterAll, describe } from 'vitest';
import { type EnvironmentContext, environmentContext, hostChecks, limitChecks } from '../src/index.js';
import { prerequisites } from '../src/prerequisites.js';
import { describeSuiteTeeth } from './support/failures.js';
import { hostMaxFileBytes } from './support/host-environment.js';
import { type HostLimitFlaw, hostLimits, limitedHost } from './support/host-limits.js';

// A fake that can drop privileges and set limits needs root; CI runs as root.
const contexts: (EnvironmentContext & { dispose(): Promise<void> })[] = [];
const contextFor = async (flaw?: HostLimitFlaw) => {
  const context = await environmentContext(limitedHost(flaw), {}, hostMaxFileBytes);
  contexts.push(context);
  return context;
};

afterAll(async () => {
  for (const context of contexts) await context.dispose();
});

describe.skipIf(!prerequisites.root())('as root', () => {
  describeSuiteTeeth('environment host', hostChecks, () => contextFor(), [
    [
      'runs commands as the runner (root): kernel settings',
      () => contextFor('runs-as-runner'),
      'kernel settings',
    ],
    [
      'runs commands as the runner (root): system files',
      () => contextFor('runs-as-runner'),
      'not root on the host',
    ],
    ['runs commands as the runner (root): cgroups', () => contextFor('runs-as-runner'), 'out of its cgroup'],
  ]);

  describeSuiteTeeth('environment limits', limitChecks(hostLimits), () => contextFor(), [
    ['has no pids limit', () => contextFor('no-pids-limit'), 'pids limit'],
    ['has no memory limit', () => contextFor('no-memory-limit'), 'memory limit'],
    ['has no disk limit', () => contextFor('no-disk-limit'), 'disk limit'],
    [
      'does not count removed files held open',
      () => contextFor('misses-removed-files'),
      'removed files they hold open',
    ],
  ]);
});

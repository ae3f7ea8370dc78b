import { definePlugin, imageNotRunWarnings, tokens } from '@longhaul/core';
import { hostReport, localGuarantee, localWarnings } from './guarantees.js';
import { LocalEnvironment } from './local-environment.js';
import { localOptions } from './options.js';

export { hardeningProblem } from './bubblewrap.js';
export {
  type HostReport,
  hostReport,
  localGuarantee,
  localWarnings,
  noIsolationWarning,
  uncontainedWarning,
} from './guarantees.js';
export { LocalEnvironment } from './local-environment.js';
export { LocalSandbox } from './local-sandbox.js';
export { type LocalOptions, localOptions } from './options.js';

export default definePlugin({
  kind: 'environment',
  id: 'local',
  description:
    'A temp-directory workspace on the host; commands run with no isolation, or under bubblewrap (isolation: bubblewrap), as a host user of their own when the runner is root, with pids, memory and disk limits',
  options: localOptions,
  // Local runs no image: a task validated in one runs its tests with the host's programs instead.
  warnings: (options, use) => [
    ...localWarnings(options, hostReport()),
    ...imageNotRunWarnings('local', use.tasks),
  ],
  guarantees: (options) => [localGuarantee(options, hostReport())],
  register(bind, options) {
    bind(tokens.Environment).toDynamicValue((ctx) => {
      const run = ctx.get(tokens.Run, { optional: true });
      return new LocalEnvironment(
        options,
        ctx.get(tokens.SnapshotStore, { optional: true }),
        run?.baseDir,
        run?.runDir,
      );
    });
  },
});

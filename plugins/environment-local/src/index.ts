import { definePlugin, tokens } from '@longhaul/core';
import { LocalEnvironment } from './local-environment.js';
import { localOptions } from './options.js';

export { hardeningProblem } from './bubblewrap.js';
export { LocalEnvironment } from './local-environment.js';
export { LocalSandbox } from './local-sandbox.js';
export { type LocalOptions, localOptions } from './options.js';

export const noIsolationWarning =
  "environment 'local' has no isolation: the agent can read and write everything the runner's user can (its environment through /proc, the tasks' hidden cases and reference solutions, the run directory) and reach every host port; use isolation: bubblewrap, or the docker environment, for agents you do not trust";

export default definePlugin({
  kind: 'environment',
  id: 'local',
  description:
    'A temp-directory workspace on the host; commands run as the current user with no isolation, or under bubblewrap (isolation: bubblewrap)',
  options: localOptions,
  warnings: (options) => (options.isolation === 'none' ? [noIsolationWarning] : []),
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

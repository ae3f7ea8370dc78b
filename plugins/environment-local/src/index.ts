import { definePlugin, imageNotRunWarnings, tokens } from '@longhaul/core';
import { LocalEnvironment } from './local-environment.js';
import { localOptions } from './options.js';
import { cgroupProblem } from './sandbox-cgroup.js';

export { hardeningProblem } from './bubblewrap.js';
export { LocalEnvironment } from './local-environment.js';
export { LocalSandbox } from './local-sandbox.js';
export { type LocalOptions, localOptions } from './options.js';

export const noIsolationWarning =
  "environment 'local' has no isolation: the agent can read and write everything the runner's user can (its environment through /proc, the tasks' hidden cases and reference solutions, the run directory) and reach every host port; use isolation: bubblewrap, or the docker environment, for agents you do not trust";

/** Plain mode on a host that gives its sandboxes no cgroups: which process escapes, and why. */
export function uncontainedWarning(problem: string): string {
  return `environment 'local' (isolation: none) cannot end every process a command starts: ${problem}. A process started with a cleared environment (env -i) in a session of its own (setsid) outlives its step and the run; run as root on a host with a writable cgroup v2 hierarchy, or use isolation: bubblewrap, to end it with its sandbox`;
}

function plainWarnings(): string[] {
  const problem = cgroupProblem();
  return problem === undefined ? [noIsolationWarning] : [noIsolationWarning, uncontainedWarning(problem)];
}

export default definePlugin({
  kind: 'environment',
  id: 'local',
  description:
    'A temp-directory workspace on the host; commands run as the current user with no isolation, or under bubblewrap (isolation: bubblewrap)',
  options: localOptions,
  // Local runs no image: a task validated in one runs its tests with the host's programs instead.
  warnings: (options, use) => [
    ...(options.isolation === 'none' ? plainWarnings() : []),
    ...imageNotRunWarnings('local', use.tasks),
  ],
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

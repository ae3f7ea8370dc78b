import { definePlugin, excludesOption, maxFileSizeOption, tokens } from '@longhaul/core';
import { z } from 'zod';
import { FolderEnvironment } from './folder-environment.js';

export { FolderEnvironment } from './folder-environment.js';
export { FolderSandbox } from './folder-sandbox.js';

/** The environment's options, as an experiment gives them (`environment: {id, options}`). */
export const options = z
  .object({
    excludes: excludesOption,
    maxFileSize: maxFileSizeOption,
  })
  .strict();

export type Options = z.output<typeof options>;

export default definePlugin({
  kind: 'environment',
  id: '{{id}}',
  description:
    "A temporary folder on the host per sandbox; commands run as the runner's user, without isolation",
  options,
  // Printed by validate and run: users must know what an agent can reach.
  warnings: () => [
    "environment '{{id}}' has no isolation: the agent's commands run as your user and can read and write what you can",
  ],
  register(bind, options) {
    // The run's snapshot store: snapshots live in the run directory, where scorers and resumes find them.
    bind(tokens.Environment).toDynamicValue(
      (ctx) => new FolderEnvironment(options, ctx.get(tokens.SnapshotStore, { optional: true })),
    );
  },
});

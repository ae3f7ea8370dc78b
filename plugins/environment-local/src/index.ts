import { definePlugin, tokens } from '@longhaul/core';
import { LocalEnvironment } from './local-environment.js';
import { localOptions } from './options.js';

export { LocalEnvironment } from './local-environment.js';
export { LocalSandbox } from './local-sandbox.js';
export { type LocalOptions, localOptions } from './options.js';

export default definePlugin({
  kind: 'environment',
  id: 'local',
  description: 'A temp-directory workspace on the host; commands run as the current user',
  options: localOptions,
  register(bind, options) {
    bind(tokens.Environment).toDynamicValue(
      (ctx) => new LocalEnvironment(options, ctx.get(tokens.SnapshotStore, { optional: true })),
    );
  },
});

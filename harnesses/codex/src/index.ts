import { definePlugin, tokens } from '@longhaul/core';
import { Codex } from './codex.js';
import { codexOptions } from './options.js';

export { bundledBinary, pinnedVersion } from './binary.js';
export { Codex, type CodexState } from './codex.js';
export { type CodexOptions, codexOptions } from './options.js';
export { CodexStreamParser, failureStatus } from './stream-parser.js';

export default definePlugin({
  kind: 'harness',
  id: 'codex',
  description: "OpenAI's Codex CLI, headless (codex exec --json), pointed at the run's model gateway",
  options: codexOptions,
  register(bind, options) {
    bind(tokens.Harness).toDynamicValue(
      (ctx) => new Codex(options, ctx.get(tokens.Gateway, { optional: true })),
    );
  },
});

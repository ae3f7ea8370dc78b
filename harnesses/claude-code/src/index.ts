import { definePlugin, tokens } from '@longhaul/core';
import { ClaudeCode } from './claude-code.js';
import { claudeCodeOptions } from './options.js';

export { bundledBinary, pinnedVersion } from './binary.js';
export { ClaudeCode, type ClaudeCodeState } from './claude-code.js';
export { type ClaudeCodeOptions, claudeCodeOptions } from './options.js';
export { ClaudeStreamParser } from './stream-parser.js';

export default definePlugin({
  kind: 'harness',
  id: 'claude-code',
  description: "Anthropic's Claude Code CLI, headless (stream-json), pointed at the run's model gateway",
  options: claudeCodeOptions,
  register(bind, options) {
    bind(tokens.Harness).toDynamicValue(
      (ctx) => new ClaudeCode(options, ctx.get(tokens.Gateway, { optional: true })),
    );
  },
});

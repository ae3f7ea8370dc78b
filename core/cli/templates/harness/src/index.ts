import { definePlugin, tokens } from '@longhaul/core';
import { CommandHarness } from './command-harness.js';
import { options } from './options.js';

export { CommandHarness } from './command-harness.js';
export { CommandSession } from './command-session.js';
export { type Options, options } from './options.js';

export default definePlugin({
  kind: 'harness',
  id: '{{id}}',
  description: 'Runs a command in the workspace once per turn, the prompt on its standard input',
  options,
  register(bind, options) {
    bind(tokens.Harness).toConstantValue(new CommandHarness(options));
  },
});

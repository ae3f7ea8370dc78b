import { definePlugin, tokens } from '@longhaul/core';
import { optionsSchema } from './options.js';
import { SlumpSource } from './slump-source.js';

export { loadScript } from './load-script.js';
export { optionsSchema, type SlumpSourceOptions } from './options.js';
export { type ScriptFile, scriptFileSchema } from './script-file.js';
export { SlumpSource } from './slump-source.js';

export default definePlugin({
  kind: 'source',
  id: 'slump',
  description:
    'Emergent-specification scripts (script.yaml): ordered requests that disclose components, and the full specification',
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Source).toConstantValue(new SlumpSource(options));
  },
});

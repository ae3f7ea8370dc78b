import type { Script } from '@longhaul/core';
import { describeScript, instantiatePlugin } from '@longhaul/testkit';
import plugins from '../src/index.js';

for (const plugin of plugins) {
  for (const options of [{}, { feedbackCycles: 2 }]) {
    describeScript(`${plugin.id} ${JSON.stringify(options)}`, () =>
      instantiatePlugin<Script>(plugin, options),
    );
  }
}

import type { Script } from '@longhaul/core';
import { describeScript, instantiatePlugin } from '@longhaul/testkit';
import plugins from '../src/index.js';

for (const plugin of plugins) {
  const variants: object[] = [{}, { feedbackCycles: 2 }, { prompt: 'swe-steps' }];
  if (plugin.id === 'checkpoints' || plugin.id === 'isolated') variants.push({ sandbox: 'fresh' });
  for (const options of variants) {
    describeScript(`${plugin.id} ${JSON.stringify(options)}`, () =>
      instantiatePlugin<Script>(plugin, options),
    );
  }
}

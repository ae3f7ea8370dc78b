import { describeSource } from '@longhaul/testkit';
import plugin, { ScbenchSource } from '../src/index.js';

describeSource('scbench', () => new ScbenchSource(plugin.options.parse({ path: 'fixtures/problems' })), {
  baseDir: import.meta.dirname,
});

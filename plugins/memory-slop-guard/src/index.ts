import { definePlugin, tokens } from '@longhaul/core';
import { slopGuardOptions } from './options.js';
import { SlopGuardMemory } from './slop-guard.js';

export { qualityOf, renderBrief, type TurnQuality } from './brief.js';
export { type SlopGuardOptions, slopGuardOptions } from './options.js';
export { SlopGuardMemory } from './slop-guard.js';

export default definePlugin({
  kind: 'memory',
  id: 'slop-guard',
  description:
    "After each turn, the quality metrics' worst offenders (highest-mass callables, clone groups, rising erosion) go into the next turn's prompt",
  options: slopGuardOptions,
  register(bind, options) {
    bind(tokens.Memory).toConstantValue(new SlopGuardMemory(options));
  },
});

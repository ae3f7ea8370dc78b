import { definePlugin, tokens } from '@longhaul/core';
import { optionsSchema } from './options.js';
import { SolveRatesScorer } from './solve-rates-scorer.js';

export { type Checkpoint, checkpointsOf } from './checkpoints.js';
export { optionsSchema, type SolveRatesOptions } from './options.js';
export { type Phase, phaseOf, phases } from './phases.js';
export { SolveRatesScorer, version } from './solve-rates-scorer.js';

export default definePlugin({
  kind: 'scorer',
  id: 'solve-rates',
  description:
    "SlopCodeBench's Table 1 per condition: strict/iso/core and partial solve rates, cost and minutes per checkpoint, erosion and verbosity, progress phases",
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new SolveRatesScorer(options));
  },
});

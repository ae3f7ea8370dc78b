import { definePlugin, tokens } from '@longhaul/core';
import { projectGuardOptions } from './options.js';
import { ProjectGuardMemory } from './projectguard.js';

export { type Extraction, extractionSchema, mergeExtraction } from './extractor.js';
export {
  type Forecast,
  forecastSchema,
  lexicalForecast,
  renderProjectBrief,
  renderTaskBrief,
} from './forecaster.js';
export { type ProjectGuardOptions, projectGuardOptions } from './options.js';
export { ProjectGuardMemory, sessionTokens } from './projectguard.js';
export { type Edge, type SemanticRecord, SemanticStore } from './records.js';
export { type Meta, StateFiles } from './state.js';
export {
  changesBetween,
  type FileSkeleton,
  renderSkeleton,
  type Skeleton,
  skeletonOf,
} from './structural.js';

export default definePlugin({
  kind: 'memory',
  id: 'projectguard',
  description:
    'ProjectGuard: semantic records and a code skeleton kept outside the session, a task brief before each turn, proactive restarts',
  options: projectGuardOptions,
  register(bind, options) {
    bind(tokens.Memory).toDynamicValue(
      (ctx) =>
        new ProjectGuardMemory(
          options,
          ctx.get(tokens.Trial).id,
          ctx.get(tokens.Gateway, { optional: true }),
          ctx.get(tokens.Logger, { optional: true }),
        ),
    );
  },
});

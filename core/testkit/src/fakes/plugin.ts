import { type PluginDefinition, type PluginKind, tokens } from '@longhaul/core';
import type { ResolutionContext } from 'inversify';
import { z } from 'zod';

const tokenOf: Record<PluginKind, symbol> = {
  harness: tokens.Harness as symbol,
  environment: tokens.Environment as symbol,
  script: tokens.Script as symbol,
  scorer: tokens.Scorer as symbol,
  memory: tokens.Memory as symbol,
  source: tokens.Source as symbol,
  reporter: tokens.Reporter as symbol,
  executor: tokens.Executor as symbol,
};

/**
 * A plugin definition that hands out an instance made by `create` (e.g. a fake, so a test can
 * inspect it after the run), for registries built in tests. `create` gets the container context,
 * so it can `ctx.get(tokens.SnapshotStore)` like a real plugin.
 */
export function fakePlugin(
  kind: PluginKind,
  id: string,
  create: (ctx: ResolutionContext) => unknown,
): PluginDefinition {
  return {
    kind,
    id,
    description: `fake ${kind} for tests`,
    options: z.object({}).passthrough(),
    register(bind) {
      bind(tokenOf[kind]).toDynamicValue(create);
    },
  };
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, type Gateway, type GatewayConfigInput, type GatewayOptions } from '@longhaul/gateway';

export type { Gateway, GatewayConfigInput } from '@longhaul/gateway';

/** The `models:` map of an experiment file: model name → backend and its settings. */
export type TestModels = GatewayConfigInput['models'];

export interface TestGateway {
  gateway: Gateway;
  /** The run directory the gateway records into (`<runDir>/gateway/`). */
  runDir: string;
  /** Closes the gateway, and removes the run directory when this helper made it. */
  dispose(): Promise<void>;
}

/**
 * A gateway in the test's own process, for plugins that call models (judges, extractors,
 * harnesses): give it scripted, replay or oracle models, never a provider. Without `runDir` the
 * recordings go to a temporary directory that `dispose` removes.
 */
export async function openTestGateway(
  models: TestModels,
  options: Partial<GatewayOptions> = {},
): Promise<TestGateway> {
  const ownDir = options.runDir ? undefined : await mkdtemp(join(tmpdir(), 'longhaul-test-gateway-'));
  const runDir = options.runDir ?? (ownDir as string);
  const gateway = await createGateway({ models }, { ...options, runDir });
  return {
    gateway,
    runDir,
    async dispose() {
      await gateway.close();
      if (ownDir) await rm(ownDir, { recursive: true, force: true });
    },
  };
}

/**
 * A model that answers each request with the next reply, in order (`backend: scripted`). The
 * gateway checks the replies when it opens, as it checks an experiment file's.
 */
export function scriptedModel(replies: readonly unknown[]): TestModels[string] {
  return { backend: 'scripted', replies } as TestModels[string];
}

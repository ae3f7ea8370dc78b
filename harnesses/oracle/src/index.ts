import { resolve } from 'node:path';
import {
  definePlugin,
  type Harness,
  type HarnessCapabilities,
  type Sandbox,
  type Session,
  type SessionOptions,
  tokens,
} from '@longhaul/core';
import { type OracleOptions, oracleOptions } from './options.js';
import { OracleSession } from './oracle-session.js';

export { type OracleOptions, oracleOptions } from './options.js';
export { OracleSession } from './oracle-session.js';
export { workspaceChanges } from './workspace-changes.js';

/**
 * A harness with no model: it proves that a task, an environment, a script and the scorers can
 * reach 100% by writing each step's reference solution. It holds no state between turns, so any
 * session can be resumed.
 */
export class OracleHarness implements Harness {
  readonly capabilities: HarnessCapabilities = { resume: true, memoryFiles: [], hooks: false };
  /** It writes the reference solution itself: no model, so no gateway token. */
  readonly gatewayModel = null;

  /** @param baseDir the experiment's directory, which a relative `solutions` starts from. */
  constructor(
    private readonly options: OracleOptions,
    private readonly baseDir: string = process.cwd(),
  ) {}

  async prepare(_sandbox: Sandbox): Promise<Record<string, unknown>> {
    return { agent: 'oracle' };
  }

  async openSession(sandbox: Sandbox, options: SessionOptions): Promise<Session> {
    const solutions =
      this.options.solutions === undefined ? undefined : resolve(this.baseDir, this.options.solutions);
    return new OracleSession(sandbox, { ...this.options, solutions }, options.resume !== undefined);
  }
}

export default definePlugin({
  kind: 'harness',
  id: 'oracle',
  description:
    "Writes each step's reference solution (or a prepared workspace) into the workspace; no model (checks a pipeline can reach 100%)",
  options: oracleOptions,
  register(bind, options) {
    bind(tokens.Harness).toDynamicValue(
      (ctx) => new OracleHarness(options, ctx.get(tokens.Run, { optional: true })?.baseDir),
    );
  },
});

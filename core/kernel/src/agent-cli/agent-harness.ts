import type { ModelGateway } from '../contracts/gateway.js';
import type {
  Harness,
  HarnessCapabilities,
  ModelEndpoint,
  Session,
  SessionOptions,
} from '../contracts/harness.js';
import type { Sandbox } from '../contracts/sandbox.js';
import { ClassifiedError } from '../contracts/status.js';
import { type AgentHome, makeAgentHome } from './agent-home.js';
import { agentEndpoint, checkAgentVersion, needsModels } from './agent-setup.js';

export interface AgentCliDescription {
  /** Harness id, e.g. `codex`; also names the agent's state directory. */
  harness: string;
  /** npm package that pins the agent program, for messages. */
  packageName: string;
  /** The agent program as the sandbox sees it. */
  executable: string;
  /** The version the experiment expects. */
  version: string;
  /** The gateway model the agent asks for (the harness's `model` option); absent: the default model. */
  model?: string;
  capabilities: HarnessCapabilities;
  /** What `Session.state()` holds, for the message when a resume state is not one. */
  stateShape: string;
}

/** What a session of an agent CLI starts from. */
export interface AgentSessionStart<State> {
  sandbox: Sandbox;
  endpoint: ModelEndpoint;
  /** The agent's state directory in the sandbox (config, transcripts). */
  home: AgentHome;
  /** The saved state to continue, when resuming. */
  resume: State | undefined;
  options: SessionOptions;
}

/**
 * What every harness around an agent CLI does the same way: check the program's version in the
 * sandbox, give it a private state directory, insist on a gateway, and get the trial's endpoint.
 * A subclass says how a saved state looks and how a session runs.
 */
export abstract class AgentCliHarness<State> implements Harness {
  readonly capabilities: HarnessCapabilities;
  readonly gatewayModel: string | undefined;
  private home: AgentHome | undefined;

  constructor(
    protected readonly agent: AgentCliDescription,
    protected readonly gateway: ModelGateway | undefined,
  ) {
    this.capabilities = agent.capabilities;
    this.gatewayModel = agent.model;
  }

  protected abstract isState(value: unknown): value is State;
  protected abstract createSession(start: AgentSessionStart<State>): Session;

  async prepare(sandbox: Sandbox): Promise<Record<string, unknown>> {
    if (!this.gateway) throw needsModels(this.agent.harness);
    const version = await checkAgentVersion(sandbox, {
      harness: this.agent.harness,
      packageName: this.agent.packageName,
      executable: this.agent.executable,
      expected: this.agent.version,
    });
    this.home = await makeAgentHome(sandbox, this.agent.harness);
    return { [this.agent.harness]: { version, executable: this.agent.executable } };
  }

  async openSession(sandbox: Sandbox, options: SessionOptions): Promise<Session> {
    const endpoint = await agentEndpoint(
      this.agent.harness,
      this.gateway,
      sandbox,
      options,
      this.agent.model,
    );
    if (options.resume !== undefined && !this.isState(options.resume))
      throw new ClassifiedError(
        'harness',
        `${this.agent.harness} cannot resume from ${JSON.stringify(options.resume)}: expected ${this.agent.stateShape}`,
      );
    this.home ??= await makeAgentHome(sandbox, this.agent.harness);
    return this.createSession({ sandbox, endpoint, home: this.home, resume: options.resume, options });
  }
}

import {
  AgentCliHarness,
  type AgentSessionStart,
  type ModelEndpoint,
  type ModelGateway,
  runAgentTurn,
  type Sandbox,
  type Session,
  type TrajectoryEvent,
  type TurnOptions,
} from '@longhaul/core';
import { bundledBinary } from './binary.js';
import type { CodexOptions } from './options.js';
import { CodexStreamParser } from './stream-parser.js';

/** What `Session.state()` returns and `openSession({resume})` accepts. */
export interface CodexState {
  threadId: string;
  /** The CODEX_HOME holding the thread's rollout, inside the sandbox. */
  codexHome: string;
}

/** The variable Codex reads the per-trial token from (see the model provider's env_key). */
const keyVariable = 'LONGHAUL_GATEWAY_KEY';
const provider = 'longhaul';

/** A TOML value for a -c override: strings are quoted (JSON string escapes are valid TOML). */
function toml(value: string | number | boolean): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

export class Codex extends AgentCliHarness<CodexState> {
  constructor(
    private readonly options: CodexOptions,
    gateway: ModelGateway | undefined,
  ) {
    super(
      {
        harness: 'codex',
        packageName: '@openai/codex',
        executable: options.executable ?? bundledBinary(),
        version: options.version,
        model: options.model,
        capabilities: { resume: true, memoryFiles: ['AGENTS.md'], hooks: false },
        stateShape: '{threadId, codexHome}',
      },
      gateway,
    );
  }

  protected isState(value: unknown): value is CodexState {
    const state = value as Partial<CodexState> | null;
    return typeof state?.threadId === 'string' && typeof state.codexHome === 'string';
  }

  protected createSession({
    sandbox,
    endpoint,
    home,
    resume,
    options,
  }: AgentSessionStart<CodexState>): Session {
    return new CodexSession(sandbox, {
      options: this.options,
      executable: this.agent.executable,
      endpoint,
      codexHome: resume?.codexHome ?? home.dir,
      threadId: resume?.threadId,
      systemPrompt: options.systemPrompt,
      trialId: options.trialId,
      gateway: this.gateway,
    });
  }
}

interface SessionSetup {
  options: CodexOptions;
  executable: string;
  endpoint: ModelEndpoint;
  codexHome: string;
  threadId: string | undefined;
  systemPrompt: string | undefined;
  trialId: string;
  gateway: ModelGateway | undefined;
}

class CodexSession implements Session {
  /** Codex names the thread when it starts; until then the session goes by a provisional id. */
  id: string;
  private threadId: string | undefined;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly setup: SessionSetup,
  ) {
    this.threadId = setup.threadId;
    this.id = setup.threadId ?? `codex-${setup.trialId}`;
  }

  private model(): string {
    // The endpoint's token allows its model only (the `model` option's, when set).
    return this.setup.endpoint.model;
  }

  private argv(prompt: string): string[] {
    const { options: o, endpoint } = this.setup;
    const config: Record<string, string> = {
      model_provider: toml(provider),
      [`model_providers.${provider}`]: `{name=${toml(provider)},base_url=${toml(`${endpoint.baseUrl}/v1`)},wire_api="responses",env_key=${toml(keyVariable)}}`,
    };
    if (o.reasoningEffort) config.model_reasoning_effort = toml(o.reasoningEffort);
    if (o.sandboxMode === 'workspace-write') {
      config.sandbox_mode = toml('workspace-write');
      config.approval_policy = toml('never');
    }
    if (this.setup.systemPrompt) config.developer_instructions = toml(this.setup.systemPrompt);
    for (const [key, value] of Object.entries(o.config)) config[key] = toml(value);

    const argv = [this.setup.executable, 'exec'];
    if (this.threadId) argv.push('resume');
    argv.push('--json', '--skip-git-repo-check', '-m', this.model());
    // Confinement is longhaul's sandbox; Codex's own would need kernel features containers lack.
    if (o.sandboxMode === 'danger-full-access') argv.push('--dangerously-bypass-approvals-and-sandbox');
    for (const [key, value] of Object.entries(config)) argv.push('-c', `${key}=${value}`);
    // `--` keeps a prompt that starts with a dash from being read as an option.
    argv.push('--', ...(this.threadId ? [this.threadId] : []), prompt);
    return argv;
  }

  async *turn(prompt: string, options: TurnOptions): AsyncIterable<TrajectoryEvent> {
    this.setup.gateway?.focus(this.setup.trialId, options.focus);
    const parser = new CodexStreamParser(this.threadId !== undefined, this.model());
    const argv = this.argv(prompt);
    yield { type: 'message', role: 'user', text: prompt };
    const events = runAgentTurn(this.sandbox, {
      agent: 'codex',
      argv,
      env: {
        ...this.setup.options.env,
        CODEX_HOME: this.setup.codexHome,
        [keyVariable]: this.setup.endpoint.token,
        NO_COLOR: '1',
      },
      parser,
      signal: options.signal,
      timeoutMs: options.limits.timeoutMs,
    });
    for await (const event of events) {
      // Taken before the event is passed on: a caller may stop reading at turn.end.
      if (event.type === 'session.start') {
        this.threadId = event.sessionId;
        this.id = event.sessionId;
      }
      yield event;
    }
  }

  state(): CodexState | undefined {
    return this.threadId ? { threadId: this.threadId, codexHome: this.setup.codexHome } : undefined;
  }

  async close(): Promise<void> {}
}

import { randomUUID } from 'node:crypto';
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
import type { ClaudeCodeOptions } from './options.js';
import { ClaudeStreamParser } from './stream-parser.js';

/** What `Session.state()` returns and `openSession({resume})` accepts. */
export interface ClaudeCodeState {
  sessionId: string;
  /** The CLAUDE_CONFIG_DIR holding the session's transcript, inside the sandbox. */
  configDir: string;
}

export class ClaudeCode extends AgentCliHarness<ClaudeCodeState> {
  constructor(
    private readonly options: ClaudeCodeOptions,
    gateway: ModelGateway | undefined,
  ) {
    super(
      {
        harness: 'claude-code',
        packageName: '@anthropic-ai/claude-code',
        executable: options.executable ?? bundledBinary(),
        version: options.version,
        model: options.model,
        capabilities: { resume: true, memoryFiles: ['CLAUDE.md'], hooks: false },
        stateShape: '{sessionId, configDir}',
      },
      gateway,
    );
  }

  protected isState(value: unknown): value is ClaudeCodeState {
    const state = value as Partial<ClaudeCodeState> | null;
    return typeof state?.sessionId === 'string' && typeof state.configDir === 'string';
  }

  protected createSession({
    sandbox,
    endpoint,
    home,
    resume,
    options,
  }: AgentSessionStart<ClaudeCodeState>): Session {
    return new ClaudeCodeSession(sandbox, {
      options: this.options,
      executable: this.agent.executable,
      endpoint,
      root: home.root,
      configDir: resume?.configDir ?? home.dir,
      resumeId: resume?.sessionId,
      systemPrompt: options.systemPrompt,
      trialId: options.trialId,
      gateway: this.gateway,
    });
  }
}

interface SessionSetup {
  options: ClaudeCodeOptions;
  executable: string;
  endpoint: ModelEndpoint;
  root: boolean;
  configDir: string;
  resumeId: string | undefined;
  systemPrompt: string | undefined;
  trialId: string;
  gateway: ModelGateway | undefined;
}

/** Claude Code's settings for the models it asks for besides `--model`. */
const sideModelVariables = [
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'CLAUDE_CODE_SUBAGENT_MODEL',
];

class ClaudeCodeSession implements Session {
  /** Claude Code takes a session id from its caller, so the id is known before the first turn. */
  id: string;
  /** The session has a transcript to continue (a turn ran, or it was opened to resume). */
  private started: boolean;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly setup: SessionSetup,
  ) {
    this.id = setup.resumeId ?? randomUUID();
    this.started = setup.resumeId !== undefined;
  }

  private argv(prompt: string, options: TurnOptions): string[] {
    const { options: o, endpoint } = this.setup;
    const argv = [
      this.setup.executable,
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      endpoint.model,
      '--dangerously-skip-permissions',
      ...(this.started ? ['--resume', this.id] : ['--session-id', this.id]),
    ];
    const maxTurns = [o.maxTurns, options.limits.maxAgentTurns].filter((n): n is number => n !== undefined);
    if (maxTurns.length > 0) argv.push('--max-turns', String(Math.min(...maxTurns)));
    if (o.allowedTools?.length) argv.push('--allowedTools', o.allowedTools.join(','));
    if (o.disallowedTools?.length) argv.push('--disallowedTools', o.disallowedTools.join(','));
    const system = [o.appendSystemPrompt, this.setup.systemPrompt].filter(Boolean).join('\n\n');
    if (system) argv.push('--append-system-prompt', system);
    // `--` keeps a prompt that starts with a dash from being read as an option.
    argv.push('--', prompt);
    return argv;
  }

  private env(): Record<string, string> {
    const { options: o, endpoint } = this.setup;
    const env: Record<string, string> = {
      ...o.env,
      ANTHROPIC_BASE_URL: endpoint.baseUrl,
      ANTHROPIC_API_KEY: endpoint.token,
      // The token allows the trial's model only: the models Claude Code would pick for side tasks
      // and subagents (a small fast one, its haiku/sonnet/opus aliases) are that model too.
      ...Object.fromEntries(sideModelVariables.map((name) => [name, endpoint.model])),
      CLAUDE_CONFIG_DIR: this.setup.configDir,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    };
    if (o.thinkingTokens !== undefined) {
      env.MAX_THINKING_TOKENS = String(o.thinkingTokens);
      // Claude Code otherwise lets models that support it choose their own ("adaptive") budget.
      env.CLAUDE_CODE_DISABLE_ADAPTIVE_THINKING = '1';
    }
    // Claude Code refuses to skip permission prompts as root unless told it runs in a sandbox.
    if (this.setup.root) env.IS_SANDBOX = '1';
    return env;
  }

  async *turn(prompt: string, options: TurnOptions): AsyncIterable<TrajectoryEvent> {
    this.setup.gateway?.focus(this.setup.trialId, options.focus);
    const parser = new ClaudeStreamParser(this.started);
    const argv = this.argv(prompt, options);
    const env = this.env();
    yield { type: 'message', role: 'user', text: prompt };
    const events = runAgentTurn(this.sandbox, {
      agent: 'claude',
      argv,
      env,
      parser,
      signal: options.signal,
      timeoutMs: options.limits.timeoutMs,
    });
    for await (const event of events) {
      // Taken before the event is passed on: a caller may stop reading at turn.end.
      // Once Claude Code has started the session, later turns resume it; before, they start it again.
      if (event.type === 'session.start') {
        this.id = event.sessionId;
        this.started = true;
      }
      yield event;
    }
  }

  state(): ClaudeCodeState | undefined {
    return this.started ? { sessionId: this.id, configDir: this.setup.configDir } : undefined;
  }

  async close(): Promise<void> {}
}

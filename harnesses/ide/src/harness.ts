import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  ClassifiedError,
  type Harness,
  type HarnessCapabilities,
  type ModelGateway,
  type Sandbox,
  type Session,
  type SessionOptions,
} from '@longhaul/core';
import { isDirect, parseModel, resolveModel } from './model.js';
import { type IdeOptions, type IdeSettings, settle } from './options.js';
import { sessionPrompts } from './prompt.js';
import { IdeSession, isIdeState } from './session.js';
import { loadExtraTools } from './tools/extra.js';
import { connectMcp } from './tools/mcp.js';
import { offeredTools } from './tools/registry.js';
import type { IdeTool } from './tools/tool.js';

/**
 * IDE-Bench's agent: a tool loop in the runner's process over any model, whose tools act in the
 * sandbox through the sandbox contract (so `local` and `docker` behave alike). Sessions hold
 * their whole conversation in `state()`, so a crashed trial resumes where it stopped.
 */
export class IdeHarness implements Harness {
  readonly capabilities: HarnessCapabilities = { resume: true, memoryFiles: [], hooks: false };
  /** A model named with a provider prefix is called directly, without the gateway. */
  readonly gatewayModel: string | null | undefined;

  private extra?: Promise<IdeTool[]>;
  private basePrompt?: Promise<string | undefined>;
  private readonly options: IdeSettings;

  constructor(
    options: IdeOptions,
    private readonly gateway: ModelGateway | undefined,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly baseDir: string = process.cwd(),
  ) {
    this.options = settle(options);
    this.gatewayModel = isDirect(options) ? null : parseModel(options.model).id;
  }

  /** The text replacing the paper's prompt: `systemPrompt`, or `systemPromptFile` read once. */
  private prompt(): Promise<string | undefined> {
    const file = this.options.systemPromptFile;
    this.basePrompt ??=
      file === undefined
        ? Promise.resolve(this.options.systemPrompt)
        : readFile(resolve(this.baseDir, file), 'utf8').catch((error: Error) => {
            throw new ClassifiedError('harness', `harness 'ide': systemPromptFile ${file}: ${error.message}`);
          });
    return this.basePrompt;
  }

  private extraTools(): Promise<IdeTool[]> {
    this.extra ??= loadExtraTools(this.options.extraTools, this.baseDir);
    return this.extra;
  }

  async prepare(_sandbox: Sandbox): Promise<Record<string, unknown>> {
    if (isDirect(this.options)) resolveModel(this.options, undefined, this.env);
    await this.prompt();
    return {
      agent: 'ide',
      profile: this.options.profile,
      model: this.options.model ?? '(gateway)',
      tools: offeredTools(this.options, [], await this.extraTools())
        .filter((tool) => !tool.unlisted)
        .map((tool) => tool.name),
    };
  }

  async openSession(sandbox: Sandbox, options: SessionOptions): Promise<Session> {
    const endpoint =
      options.model ??
      (this.gateway && !isDirect(this.options)
        ? await this.gateway.endpoint(options.trialId, sandbox.hostAddress, this.gatewayModel ?? undefined)
        : undefined);
    const model = resolveModel(this.options, endpoint, this.env);
    if (options.resume !== undefined && !isIdeState(options.resume))
      throw new ClassifiedError(
        'harness',
        "harness 'ide': the saved session state is not one this harness wrote",
      );
    const prompts = sessionPrompts(this.options.profile, await this.prompt(), options.systemPrompt);
    const mcp = await connectMcp(this.options.mcpServers);
    return new IdeSession(
      sandbox,
      this.options,
      model,
      prompts.system,
      options.resume,
      [...(await this.extraTools()), ...mcp.tools],
      mcp.close,
      prompts.firstMessagePrefix,
    );
  }
}

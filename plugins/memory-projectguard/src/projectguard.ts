import type {
  Logger,
  Memory,
  MemoryContext,
  MemoryPatch,
  ModelGateway,
  TrajectoryEvent,
  TurnResult,
  WorkspaceFile,
} from '@longhaul/core';
import { errorMessage } from '@longhaul/core';
import { extractionSchema, extractorPrompt, extractorSystemPrompt, mergeExtraction } from './extractor.js';
import {
  type Forecast,
  forecasterPrompt,
  forecasterSystemPrompt,
  forecastSchema,
  lexicalForecast,
  renderProjectBrief,
  renderTaskBrief,
} from './forecaster.js';
import { askModel } from './gateway-model.js';
import type { ProjectGuardOptions } from './options.js';
import { SemanticStore } from './records.js';
import { directoryBytes, StateFiles } from './state.js';
import { changesBetween, type Skeleton, sha256, skeletonOf } from './structural.js';

const briefFile = '.projectguard/brief.md';
const hookSettings = JSON.stringify(
  { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `cat ${briefFile}` }] }] } },
  null,
  2,
);

/** Tokens in the live session: the last model call's context, else a characters/4 estimate. */
export function sessionTokens(events: readonly TrajectoryEvent[]): number {
  const usage = events.findLast((event) => event.type === 'usage' && (event.usage.inputTokens ?? 0) > 0);
  if (usage?.type === 'usage') {
    const u = usage.usage;
    return (
      (u.inputTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) + (u.outputTokens ?? 0)
    );
  }
  let chars = 0;
  for (const event of events) {
    if (event.type === 'message' || event.type === 'reasoning') chars += event.text.length;
    else if (event.type === 'tool.result') chars += event.output.length;
    else if (event.type === 'tool.call') chars += JSON.stringify(event.input ?? '').length;
  }
  return Math.ceil(chars / 4);
}

/**
 * ProjectGuard (SLUMP §5): a semantic state of committed project facts and a structural state
 * of the code, kept outside the agent's context; before each turn a forecaster turns them into a
 * task brief and may restart the session with the whole project brief when context runs low.
 */
export class ProjectGuardMemory implements Memory {
  readonly ownedFiles: string[];

  constructor(
    private readonly options: ProjectGuardOptions,
    private readonly trialId: string,
    private readonly gateway: ModelGateway | undefined,
    private readonly logger?: Logger,
  ) {
    this.ownedFiles = {
      prefix: [],
      'claude-md': ['CLAUDE.md'],
      'agents-md': ['AGENTS.md'],
      hooks: [briefFile, '.claude/settings.json'],
    }[options.injection];
  }

  /** Whether a workspace path is the agent's own work, not this memory's file or tool state. */
  private isSource(path: string): boolean {
    const owned = new Set([...this.ownedFiles, 'NOTES.md']);
    return (
      !owned.has(path) &&
      !path
        .split('/')
        .some((part) => part.startsWith('.') || part === 'node_modules' || part === '__pycache__')
    );
  }

  /**
   * The agent's files, and no others read: a workspace's data and caches can be large. Filtered
   * again, for an environment that does not know `only` yet.
   */
  private async sourceFiles(sandbox: MemoryContext['sandbox']): Promise<WorkspaceFile[]> {
    const files = await sandbox.pull({ only: (entry) => this.isSource(entry.path) });
    return files.filter((file) => this.isSource(file.path));
  }

  async beforeTurn(ctx: MemoryContext): Promise<MemoryPatch> {
    const state = new StateFiles(ctx.stateDir);
    const store = await SemanticStore.open(state.semantic);
    const meta = await state.meta();
    let skeleton = await state.skeleton();
    if (!skeleton) {
      // First turn: the seed's structure, and the manifest later turns are compared with.
      const files = await this.sourceFiles(ctx.sandbox);
      skeleton = this.refresh(
        {},
        files,
        files.map((file) => file.path),
      );
      await state.saveSkeleton(skeleton);
      await state.saveManifest(Object.fromEntries(files.map((file) => [file.path, sha256(file.data)])));
    }
    const request = ctx.plan.prompt;
    const prior = (await state.requests())
      .map((entry) => entry.text)
      .slice(-this.options.maxRequestsInForecast);
    const freeShare = Math.max(0, 1 - sessionTokens(ctx.sessionEvents) / this.options.contextWindow);
    let forecast: Forecast;
    try {
      forecast = await askModel(
        this.gateway,
        this.trialId,
        this.options.forecaster,
        forecasterSystemPrompt,
        forecasterPrompt(request, prior, store, skeleton, freeShare),
        forecastSchema,
      );
    } catch (error) {
      meta.forecastFailures++;
      this.logger?.warn(`projectguard: forecaster failed (${errorMessage(error)}); brief from word overlap`);
      forecast = lexicalForecast(request, store, skeleton, this.options.briefRecords);
    }
    const restart =
      this.options.restarts &&
      !ctx.freshSession &&
      (forecast.restart || freeShare < this.options.restartBelow);
    let brief = renderTaskBrief(forecast, store, this.options.briefRecords);
    if (restart || (ctx.freshSession && ctx.turnIndex > 0))
      brief = `${renderProjectBrief(store, skeleton)}\n\n${brief}`;
    if (restart) {
      meta.restarts++;
      await state.log('restarts.jsonl', {
        turn: ctx.turnIndex,
        freeShare,
        forecasterAsked: forecast.restart,
      });
    }
    if (restart || ctx.freshSession) meta.sessions++;
    meta.briefs++;
    await state.log('requests.jsonl', { turn: ctx.turnIndex, text: request });
    await state.saveBrief(ctx.turnIndex, brief);
    await state.saveMeta(meta);
    return { ...this.inject(brief), ...(restart ? { restartSession: true } : {}) };
  }

  private inject(brief: string): MemoryPatch {
    switch (this.options.injection) {
      case 'prefix':
        return { prefix: `${brief}\n\n## Request\n\n` };
      case 'claude-md':
        return { files: { 'CLAUDE.md': `${brief}\n` } };
      case 'agents-md':
        return { files: { 'AGENTS.md': `${brief}\n` } };
      case 'hooks':
        return { files: { [briefFile]: `${brief}\n`, '.claude/settings.json': `${hookSettings}\n` } };
    }
  }

  async afterTurn(ctx: MemoryContext, result: TurnResult, events: readonly TrajectoryEvent[]): Promise<void> {
    const state = new StateFiles(ctx.stateDir);
    const meta = await state.meta();
    meta.turns++;
    meta.compactions += events.filter((event) => event.type === 'compaction').length;
    // The structural state follows the files this turn added, modified or deleted.
    const files = await this.sourceFiles(ctx.sandbox).catch(() => undefined);
    let changed: string[] = [];
    if (files) {
      const before = (await state.manifest()) ?? {};
      const after = Object.fromEntries(files.map((file) => [file.path, sha256(file.data)]));
      const changes = changesBetween(before, after);
      changed = [...changes.added, ...changes.modified, ...changes.deleted];
      const skeleton = (await state.skeleton()) ?? {};
      for (const path of changes.deleted) delete skeleton[path];
      await state.saveSkeleton(this.refresh(skeleton, files, [...changes.added, ...changes.modified]));
      await state.saveManifest(after);
      await state.log('changes.jsonl', { turn: ctx.turnIndex, ...changes });
    }
    const store = await SemanticStore.open(state.semantic);
    try {
      const extraction = await askModel(
        this.gateway,
        this.trialId,
        this.options.extractor,
        extractorSystemPrompt,
        extractorPrompt(ctx.turnIndex, ctx.plan.prompt, result.finalText, changed, store),
        extractionSchema,
      );
      const touched = mergeExtraction(store, extraction, ctx.turnIndex, `user:${ctx.turnIndex + 1}`);
      await store.save();
      if (touched.length) await state.log('records.jsonl', { turn: ctx.turnIndex, touched });
    } catch (error) {
      meta.extractionFailures++;
      this.logger?.warn(
        `projectguard: extractor failed (${errorMessage(error)}); records unchanged this turn`,
      );
    }
    meta.records = store.records.length;
    meta.edges = store.edges.length;
    meta.stateBytes =
      (await directoryBytes(state.semantic)) + (await directoryBytes(`${ctx.stateDir}/structural`));
    await state.saveMeta(meta);
  }

  private refresh(skeleton: Skeleton, files: WorkspaceFile[], paths: string[]): Skeleton {
    const wanted = new Set(paths);
    const decoder = new TextDecoder();
    for (const file of files) {
      if (!wanted.has(file.path)) continue;
      const parsed = skeletonOf(file.path, decoder.decode(file.data));
      if (parsed) skeleton[file.path] = parsed;
      else delete skeleton[file.path];
    }
    return skeleton;
  }
}

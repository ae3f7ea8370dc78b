import type { TrajectoryEvent, TurnResult } from '../contracts/trajectory.js';
import { addUsage, emptyUsage, type Usage } from '../contracts/usage.js';
import {
  type AtifMetrics,
  type AtifStep,
  type AtifToolCall,
  type AtifTrajectory,
  atifSchemaVersion,
} from './atif-types.js';

export interface AtifMeta {
  /** The harness id (`claude-code`, `codex`...). */
  agent: string;
  /** The agent program's version, from lock.json; `unknown` when not recorded. */
  version?: string;
  model?: string;
  /** Identifies this trajectory file, e.g. the trial id. */
  trajectoryId?: string;
  /**
   * The metered usage of the whole trajectory (the gateway's, as trial.json has it). It replaces
   * the sum of what the agent reported in final_metrics: agents price tokens by their own tables.
   */
  usage?: Usage;
  extra?: Record<string, unknown>;
}

function isoTime(ts: number | undefined): string | undefined {
  return ts === undefined ? undefined : new Date(ts).toISOString();
}

function toArguments(input: unknown): Record<string, unknown> {
  if (input !== null && typeof input === 'object' && !Array.isArray(input))
    return input as Record<string, unknown>;
  return input === undefined ? {} : { input };
}

/** ATIF counts cached input inside prompt_tokens; longhaul's Usage keeps them apart. */
function toMetrics(usage: Partial<Usage>): AtifMetrics {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const metrics: AtifMetrics = {
    prompt_tokens: (usage.inputTokens ?? 0) + cacheRead + cacheWrite,
    completion_tokens: usage.outputTokens ?? 0,
    cached_tokens: cacheRead,
    cost_usd: usage.costUsd ?? 0,
  };
  if (cacheWrite > 0) metrics.extra = { cache_creation_input_tokens: cacheWrite };
  return metrics;
}

function addMetrics(step: AtifStep, usage: Partial<Usage>): void {
  const previous = step.metrics;
  const next = toMetrics(usage);
  if (!previous) {
    step.metrics = next;
    return;
  }
  const cacheWrite =
    Number(previous.extra?.cache_creation_input_tokens ?? 0) +
    Number(next.extra?.cache_creation_input_tokens ?? 0);
  step.metrics = {
    prompt_tokens: (previous.prompt_tokens ?? 0) + (next.prompt_tokens ?? 0),
    completion_tokens: (previous.completion_tokens ?? 0) + (next.completion_tokens ?? 0),
    cached_tokens: (previous.cached_tokens ?? 0) + (next.cached_tokens ?? 0),
    cost_usd: (previous.cost_usd ?? 0) + (next.cost_usd ?? 0),
    ...(cacheWrite > 0 ? { extra: { cache_creation_input_tokens: cacheWrite } } : {}),
  };
}

/**
 * Converts a trial's normalized trajectory (every turn of every session, in order) into one ATIF
 * document. Agent steps gather what one model response produced: reasoning, text and tool calls,
 * with the tool results as the step's observation. Usage events become the metrics of the agent
 * step they follow; compactions and errors become system steps; sessions and turn outcomes are
 * kept in `extra`, since ATIF has no place for them.
 */
export function toAtif(events: readonly TrajectoryEvent[], meta: AtifMeta): AtifTrajectory {
  const steps: AtifStep[] = [];
  const sessions: { session_id: string; resumed: boolean; model?: string }[] = [];
  const turns: (Omit<TurnResult, 'usage' | 'finalText'> & { timestamp?: string })[] = [];
  const callSteps = new Map<string, AtifStep>();
  let turnUsage = emptyUsage();
  let eventUsage = emptyUsage();
  let agentStep: AtifStep | undefined;
  let model = meta.model;

  const push = (step: Omit<AtifStep, 'step_id'>): AtifStep => {
    const full = { step_id: steps.length + 1, ...step } as AtifStep;
    if (full.timestamp === undefined) delete full.timestamp;
    steps.push(full);
    if (full.source !== 'agent') agentStep = undefined;
    return full;
  };
  const openAgentStep = (ts: number | undefined, fits: (step: AtifStep) => boolean): AtifStep => {
    if (agentStep && fits(agentStep)) return agentStep;
    agentStep = push({
      source: 'agent',
      message: '',
      timestamp: isoTime(ts),
      ...(model ? { model_name: model } : {}),
    });
    return agentStep;
  };
  const untouched = (step: AtifStep) => !step.observation && !step.metrics;

  for (const event of events) {
    switch (event.type) {
      case 'session.start':
        sessions.push({
          session_id: event.sessionId,
          resumed: event.resumed,
          ...(event.model ? { model: event.model } : {}),
        });
        if (event.model) model = event.model;
        break;
      case 'session.end':
        break;
      case 'message':
        if (event.role === 'assistant') {
          const step = openAgentStep(event.ts, (s) => untouched(s) && s.message === '' && !s.tool_calls);
          step.message = event.text;
        } else push({ source: event.role, message: event.text, timestamp: isoTime(event.ts) });
        break;
      case 'reasoning': {
        const step = openAgentStep(event.ts, (s) => untouched(s) && s.message === '' && !s.tool_calls);
        step.reasoning_content = step.reasoning_content
          ? `${step.reasoning_content}\n${event.text}`
          : event.text;
        break;
      }
      case 'tool.call': {
        const step = openAgentStep(event.ts, untouched);
        const call: AtifToolCall = {
          tool_call_id: event.id,
          function_name: event.name,
          arguments: toArguments(event.input),
        };
        step.tool_calls = [...(step.tool_calls ?? []), call];
        if (event.explanation) step.extra = { ...step.extra, explanation: event.explanation };
        callSteps.set(event.id, step);
        break;
      }
      case 'tool.result': {
        const owner = callSteps.get(event.id);
        const result = { content: event.output, ...(event.isError ? { extra: { is_error: true } } : {}) };
        if (owner) {
          owner.observation ??= { results: [] };
          owner.observation.results.push({ source_call_id: event.id, ...result });
        } else
          push({
            source: 'system',
            message: `result of an unknown tool call ${event.id}`,
            timestamp: isoTime(event.ts),
            observation: { results: [result] },
          });
        break;
      }
      case 'usage': {
        eventUsage = addUsage(eventUsage, event.usage);
        const step = agentStep ?? [...steps].reverse().find((s) => s.source === 'agent');
        if (step) addMetrics(step, event.usage);
        break;
      }
      case 'compaction':
        push({
          source: 'system',
          message: `context compacted (${event.trigger})`,
          timestamp: isoTime(event.ts),
          extra: {
            compaction: {
              trigger: event.trigger,
              ...(event.tokensBefore !== undefined ? { tokens_before: event.tokensBefore } : {}),
              ...(event.tokensAfter !== undefined ? { tokens_after: event.tokensAfter } : {}),
            },
          },
        });
        break;
      case 'error':
        push({
          source: 'system',
          message: `error (${event.errorClass}): ${event.message}`,
          timestamp: isoTime(event.ts),
          extra: { error: { class: event.errorClass, message: event.message } },
        });
        break;
      case 'turn.end': {
        const { usage, finalText: _finalText, ...rest } = event.result;
        turnUsage = addUsage(turnUsage, usage);
        turns.push({ ...rest, ...(event.ts !== undefined ? { timestamp: isoTime(event.ts) } : {}) });
        agentStep = undefined;
        break;
      }
    }
  }

  // Turn results carry the turn's totals; usage events are the fallback for an unfinished turn.
  const total = meta.usage ?? (turns.length > 0 ? turnUsage : eventUsage);
  const totals = toMetrics(total);
  const trajectory: AtifTrajectory = {
    schema_version: atifSchemaVersion,
    session_id: sessions[0]?.session_id ?? meta.trajectoryId ?? 'unknown',
    agent: { name: meta.agent, version: meta.version ?? 'unknown', ...(model ? { model_name: model } : {}) },
    steps,
    final_metrics: {
      total_prompt_tokens: totals.prompt_tokens ?? 0,
      total_completion_tokens: totals.completion_tokens ?? 0,
      total_cached_tokens: totals.cached_tokens ?? 0,
      total_cost_usd: total.costUsd,
      total_steps: steps.length,
      ...(total.cacheWriteTokens > 0
        ? { extra: { cache_creation_input_tokens: total.cacheWriteTokens } }
        : {}),
    },
    extra: { sessions, turns, ...meta.extra },
  };
  if (meta.trajectoryId) trajectory.trajectory_id = meta.trajectoryId;
  return trajectory;
}

import type { TrajectoryEvent, TurnResult } from '@longhaul/core';
import { type Category, categoryOf, fileOf } from './categories.js';

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  explanation?: string;
  category: Category;
  file?: string;
  ok: boolean;
  /** The result's JSON object when the harness returns one (the ide harness does). */
  result?: Record<string, unknown>;
  iteration: number;
  turn: number;
}

export interface Turn {
  index: number;
  prompt?: string;
  assistantTexts: string[];
  end?: TurnResult;
}

export interface ParsedTrajectory {
  calls: ToolCall[];
  turns: Turn[];
  /** Model calls; each starts at a `usage` event (or an assistant message when there are none). */
  iterations: number;
  errors: { errorClass: string; message: string }[];
}

/** A tool result's JSON: the whole output, or its first line when command output follows it. */
export function resultJson(output: string): Record<string, unknown> | undefined {
  for (const text of [output, output.split('\n')[0] ?? '']) {
    try {
      const value = JSON.parse(text) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {}
  }
  return undefined;
}

/** Reads the normalized trajectory of a trial into calls, turns and iterations. */
export function parseTrajectory(events: readonly TrajectoryEvent[], workspace?: string): ParsedTrajectory {
  const perCallUsage = events.some((e) => e.type === 'usage');
  const calls: ToolCall[] = [];
  const pending = new Map<string, ToolCall>();
  const turns: Turn[] = [];
  const errors: ParsedTrajectory['errors'] = [];
  let iterations = 0;
  let current: Turn | undefined;
  const turn = (): Turn => {
    if (!current || current.end) {
      current = { index: turns.length, assistantTexts: [] };
      turns.push(current);
    }
    return current;
  };
  for (const event of events) {
    if (event.type === 'message' && event.role === 'user') {
      if (current && !current.end && current.prompt === undefined) current.prompt = event.text;
      else {
        current = { index: turns.length, prompt: event.text, assistantTexts: [] };
        turns.push(current);
      }
    } else if (event.type === 'usage') iterations++;
    else if (event.type === 'message' && event.role === 'assistant') {
      if (!perCallUsage) iterations++;
      turn().assistantTexts.push(event.text);
    } else if (event.type === 'tool.call') {
      if (iterations === 0) iterations++;
      const call: ToolCall = {
        id: event.id,
        name: event.name,
        input: event.input,
        ...(event.explanation ? { explanation: event.explanation } : {}),
        category: categoryOf(event.name),
        file: fileOf(event.input, workspace),
        ok: true,
        iteration: iterations,
        turn: turn().index,
      };
      calls.push(call);
      pending.set(event.id, call);
    } else if (event.type === 'tool.result') {
      const call = pending.get(event.id);
      if (call) {
        call.ok = !event.isError;
        const json = resultJson(event.output);
        if (json) {
          call.result = json;
          const file = json.file ?? json.target_file ?? json.file_path ?? json.target_notebook;
          if (typeof file === 'string') call.file = file;
        }
        pending.delete(event.id);
      }
    } else if (event.type === 'error') errors.push({ errorClass: event.errorClass, message: event.message });
    else if (event.type === 'turn.end') turn().end = event.result;
  }
  return { calls, turns, iterations, errors };
}

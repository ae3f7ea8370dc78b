import type { TrajectoryEvent } from '@longhaul/core';

let ids = 0;

/** A model call (usage event) followed by tool calls with their results. */
export function iteration(
  ...calls: {
    name: string;
    input?: Record<string, unknown>;
    ok?: boolean;
    result?: Record<string, unknown>;
    explanation?: string;
  }[]
): TrajectoryEvent[] {
  const out: TrajectoryEvent[] = [{ type: 'usage', usage: { inputTokens: 10, outputTokens: 1 } }];
  for (const call of calls) {
    const id = `c${++ids}`;
    out.push({
      type: 'tool.call',
      id,
      name: call.name,
      input: call.input ?? {},
      ...(call.explanation ? { explanation: call.explanation } : {}),
    });
    const ok = call.ok ?? true;
    out.push({
      type: 'tool.result',
      id,
      output: JSON.stringify({ success: ok, ...(call.result ?? {}) }),
      isError: !ok,
    });
  }
  return out;
}

export const read = (file: string) => ({ name: 'read_file', input: { target_file: file } });
export const edit = (file: string, ok = true, result: Record<string, unknown> = {}) => ({
  name: 'edit_file',
  input: { target_file: file },
  ok,
  result: { file, ...result },
});

export function turn(
  prompt: string,
  body: TrajectoryEvent[],
  final = 'done',
  status = 'ok',
): TrajectoryEvent[] {
  return [
    { type: 'message', role: 'user', text: prompt },
    ...body,
    { type: 'usage', usage: { inputTokens: 10, outputTokens: 1 } },
    { type: 'message', role: 'assistant', text: final },
    {
      type: 'turn.end',
      result: {
        status: status as 'ok',
        finalText: final,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
        durationMs: 1,
      },
    },
  ];
}

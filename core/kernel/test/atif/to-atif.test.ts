import { type AtifTrajectory, type TrajectoryEvent, toAtif } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

const agentOnly = ['model_name', 'reasoning_content', 'tool_calls', 'metrics', 'reasoning_effort'];
const stepKeys = new Set([
  'step_id',
  'timestamp',
  'source',
  'message',
  'observation',
  'extra',
  'llm_call_count',
  'is_copied_context',
  ...agentOnly,
]);

/** The structural rules Harbor's ATIF validator enforces. */
function atifErrors(trajectory: AtifTrajectory): string[] {
  const errors: string[] = [];
  const rootKeys = new Set([
    'schema_version',
    'session_id',
    'trajectory_id',
    'agent',
    'steps',
    'notes',
    'final_metrics',
    'continued_trajectory_ref',
    'subagent_trajectories',
    'extra',
  ]);
  for (const key of Object.keys(trajectory)) if (!rootKeys.has(key)) errors.push(`${key}: extra field`);
  if (!/^ATIF-v1\.\d+$/.test(trajectory.schema_version)) errors.push('schema_version');
  if (!trajectory.agent.name || !trajectory.agent.version) errors.push('agent: name and version required');
  if (trajectory.steps.length === 0) errors.push('steps: required');
  trajectory.steps.forEach((step, index) => {
    const at = `steps[${index}]`;
    if (step.step_id !== index + 1) errors.push(`${at}.step_id: expected ${index + 1}`);
    for (const key of Object.keys(step)) if (!stepKeys.has(key)) errors.push(`${at}.${key}: extra field`);
    if (step.source !== 'agent')
      for (const key of agentOnly) if (key in step) errors.push(`${at}.${key}: agent-only`);
    if (typeof step.message !== 'string') errors.push(`${at}.message: required`);
    if (step.timestamp !== undefined && Number.isNaN(Date.parse(step.timestamp)))
      errors.push(`${at}.timestamp: not ISO 8601`);
    const ids = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
    for (const call of step.tool_calls ?? [])
      if (typeof call.arguments !== 'object' || Array.isArray(call.arguments))
        errors.push(`${at}.tool_calls.arguments: required dict`);
    for (const result of step.observation?.results ?? [])
      if (result.source_call_id !== undefined && !ids.has(result.source_call_id))
        errors.push(`${at}: ${result.source_call_id} is not in this step's tool_calls`);
    for (const [key, value] of Object.entries(step.metrics ?? {}))
      if (key.endsWith('tokens') && !Number.isInteger(value)) errors.push(`${at}.metrics.${key}: int`);
  });
  return errors;
}

const ts = Date.parse('2026-11-25T10:00:00Z');
const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 5, costUsd: 0.01 };

const twoTurns: TrajectoryEvent[] = [
  { type: 'message', role: 'user', text: 'write hello.txt', ts },
  { type: 'session.start', sessionId: 's-1', resumed: false, model: 'claude-x', ts },
  { type: 'reasoning', text: 'A file is needed.', ts: ts + 1 },
  { type: 'message', role: 'assistant', text: 'Writing it.', ts: ts + 2 },
  {
    type: 'tool.call',
    id: 'c1',
    name: 'Write',
    input: { file_path: 'hello.txt', content: 'hi' },
    ts: ts + 3,
  },
  { type: 'tool.call', id: 'c2', name: 'Bash', input: 'ls', ts: ts + 3 },
  { type: 'tool.result', id: 'c1', output: 'written', isError: false, ts: ts + 4 },
  { type: 'tool.result', id: 'c2', output: 'denied', isError: true, ts: ts + 4 },
  { type: 'message', role: 'assistant', text: 'Done.', ts: ts + 5 },
  { type: 'usage', usage, ts: ts + 6 },
  { type: 'turn.end', result: { status: 'ok', finalText: 'Done.', usage, durationMs: 6 }, ts: ts + 6 },
  { type: 'message', role: 'user', text: 'now test it', ts: ts + 10 },
  { type: 'session.start', sessionId: 's-1', resumed: true, ts: ts + 10 },
  { type: 'compaction', trigger: 'auto', tokensBefore: 150_000, ts: ts + 11 },
  { type: 'tool.call', id: 'c3', name: 'Bash', input: { command: 'pytest' }, ts: ts + 12 },
  { type: 'error', errorClass: 'model', message: 'retry 1 of 10', ts: ts + 13 },
  {
    type: 'turn.end',
    result: { status: 'timeout', finalText: '', usage, durationMs: 9, error: 'ran past 9 ms' },
    ts: ts + 20,
  },
];

describe('toAtif', () => {
  it('turns a two-turn trajectory into valid ATIF steps with calls, observations and metrics', () => {
    const atif = toAtif(twoTurns, { agent: 'claude-code', version: '2.1.332', trajectoryId: 'trial-1' });
    expect(atifErrors(atif)).toEqual([]);
    expect(atif).toMatchObject({
      schema_version: 'ATIF-v1.7',
      session_id: 's-1',
      trajectory_id: 'trial-1',
      agent: { name: 'claude-code', version: '2.1.332', model_name: 'claude-x' },
    });
    expect(atif.steps.map((step) => `${step.source}:${step.message}`)).toEqual([
      'user:write hello.txt',
      'agent:Writing it.',
      'agent:Done.',
      'user:now test it',
      'system:context compacted (auto)',
      'agent:',
      'system:error (model): retry 1 of 10',
    ]);
    const writing = atif.steps[1]!;
    expect(writing.reasoning_content).toBe('A file is needed.');
    expect(writing.timestamp).toBe('2026-11-25T10:00:00.001Z');
    expect(writing.tool_calls).toEqual([
      { tool_call_id: 'c1', function_name: 'Write', arguments: { file_path: 'hello.txt', content: 'hi' } },
      { tool_call_id: 'c2', function_name: 'Bash', arguments: { input: 'ls' } },
    ]);
    expect(writing.observation?.results).toEqual([
      { source_call_id: 'c1', content: 'written' },
      { source_call_id: 'c2', content: 'denied', extra: { is_error: true } },
    ]);
    // ATIF counts cache reads and writes inside prompt_tokens.
    expect(atif.steps[2]!.metrics).toEqual({
      prompt_tokens: 135,
      completion_tokens: 20,
      cached_tokens: 30,
      cost_usd: 0.01,
      extra: { cache_creation_input_tokens: 5 },
    });
    expect(atif.steps[4]!.extra).toEqual({ compaction: { trigger: 'auto', tokens_before: 150000 } });
    expect(atif.final_metrics).toMatchObject({
      total_prompt_tokens: 270,
      total_completion_tokens: 40,
      total_cached_tokens: 60,
      total_cost_usd: 0.02,
      total_steps: 7,
    });
    expect(atif.extra?.turns).toEqual([
      { status: 'ok', durationMs: 6, timestamp: '2026-11-25T10:00:00.006Z' },
      { status: 'timeout', durationMs: 9, error: 'ran past 9 ms', timestamp: '2026-11-25T10:00:00.020Z' },
    ]);
    expect(atif.extra?.sessions).toEqual([
      { session_id: 's-1', resumed: false, model: 'claude-x' },
      { session_id: 's-1', resumed: true },
    ]);
  });

  it('takes final metrics from the metered usage when given', () => {
    const metered = {
      inputTokens: 1000,
      outputTokens: 50,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.5,
    };
    const atif = toAtif(twoTurns, { agent: 'claude-code', usage: metered });
    expect(atif.final_metrics).toMatchObject({
      total_prompt_tokens: 1000,
      total_completion_tokens: 50,
      total_cost_usd: 0.5,
    });
  });

  it('keeps a result whose call it never saw as a system observation', () => {
    const atif = toAtif(
      [
        { type: 'message', role: 'user', text: 'go' },
        { type: 'tool.result', id: 'ghost', output: 'out', isError: false },
      ],
      { agent: 'codex' },
    );
    expect(atifErrors(atif)).toEqual([]);
    expect(atif.steps[1]).toMatchObject({ source: 'system', observation: { results: [{ content: 'out' }] } });
    expect(atif.agent.version).toBe('unknown');
  });

  it('falls back to usage events for totals when no turn ended', () => {
    const atif = toAtif(
      [
        { type: 'message', role: 'assistant', text: 'half' },
        { type: 'usage', usage: { inputTokens: 10, outputTokens: 2 } },
      ],
      { agent: 'ide', trajectoryId: 't' },
    );
    expect(atif.session_id).toBe('t');
    expect(atif.final_metrics).toMatchObject({ total_prompt_tokens: 10, total_completion_tokens: 2 });
  });
});

import { readFileSync } from 'node:fs';
import type { TrajectoryEvent } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { CodexStreamParser, failureStatus } from '../src/index.js';

/** Output captured from Codex 0.169.0 (`codex exec --json`). */
function parseFixture(name: string, resumed = false) {
  const parser = new CodexStreamParser(resumed, 'gpt-5');
  const lines = readFileSync(new URL(`fixtures/${name}.jsonl`, import.meta.url), 'utf8')
    .trim()
    .split('\n');
  const events: TrajectoryEvent[] = lines.flatMap((line) => parser.parse(line));
  return { parser, events };
}

describe('CodexStreamParser on captured output', () => {
  it('reads a turn that runs a command: thread, messages, call and result, usage', () => {
    const { parser, events } = parseFixture('exec-command');
    expect(events).toEqual([
      {
        type: 'session.start',
        sessionId: '01a214ec-8998-7672-ad42-bf01e2ee6322',
        resumed: false,
        model: 'gpt-5',
      },
      {
        type: 'error',
        errorClass: 'agent',
        message: expect.stringContaining('Model metadata for `gpt-5` not found'),
      },
      { type: 'message', role: 'assistant', text: 'Writing the file.' },
      {
        type: 'tool.call',
        id: 'item_2',
        name: 'command_execution',
        input: { command: `/bin/bash -lc "printf 'hello\\\\n' > hello.txt && cat hello.txt"` },
      },
      { type: 'tool.result', id: 'item_2', output: 'hello\n', isError: false },
      { type: 'message', role: 'assistant', text: 'Done.' },
      {
        type: 'usage',
        model: 'gpt-5',
        usage: { inputTokens: 200, outputTokens: 60, cacheReadTokens: 40, cacheWriteTokens: 0, costUsd: 0 },
      },
    ]);
    expect(parser.outcome).toEqual({ status: 'ok' });
    expect(parser.finalText).toBe('Done.');
  });

  it('keeps the thread id of a resumed session', () => {
    const { parser, events } = parseFixture('resumed', true);
    expect(events[0]).toEqual(expect.objectContaining({ type: 'session.start', resumed: true }));
    expect(parser.sessionId).toBe('01a214ec-8998-7672-ad42-bf01e2ee6322');
  });

  it('records reconnect attempts as model errors and remembers the last one', () => {
    const { parser, events } = parseFixture('reconnecting');
    expect(events.filter((e) => e.type === 'error' && e.errorClass === 'model')).toHaveLength(5);
    expect(parser.outcome).toBeUndefined();
    expect(parser.lastError).toContain('Reconnecting');
  });

  it('turns file changes and MCP calls into calls with results', () => {
    const parser = new CodexStreamParser(false, 'm');
    const change = {
      id: 'item_5',
      type: 'file_change',
      changes: [{ path: 'a.py', kind: 'add' }],
      status: 'completed',
    };
    expect(parser.parse(JSON.stringify({ type: 'item.completed', item: change }))).toEqual([
      { type: 'tool.call', id: 'item_5', name: 'file_change', input: { changes: change.changes } },
      { type: 'tool.result', id: 'item_5', output: 'add a.py', isError: false },
    ]);
    const mcp = {
      id: 'item_6',
      type: 'mcp_tool_call',
      server: 'db',
      tool: 'query',
      arguments: { q: 1 },
      status: 'failed',
      error: { message: 'down' },
    };
    expect(parser.parse(JSON.stringify({ type: 'item.completed', item: mcp }))).toEqual([
      { type: 'tool.call', id: 'item_6', name: 'db.query', input: { q: 1 } },
      { type: 'tool.result', id: 'item_6', output: 'down', isError: true },
    ]);
  });

  it('classifies failed turns from the error message', () => {
    expect(failureStatus('unexpected status 401 Unauthorized')).toBe('error:auth');
    expect(failureStatus('exceeded retry limit, last status: 429 Too Many Requests')).toBe(
      'error:rate_limit',
    );
    expect(failureStatus('Your input exceeds the context window of this model')).toBe(
      'error:context_overflow',
    );
    expect(failureStatus('stream disconnected before completion')).toBe('error:model');
    expect(() => new CodexStreamParser(false, 'm').parse('WARNING: something')).toThrow(/not JSON/);
  });
});

import { readFileSync } from 'node:fs';
import type { TrajectoryEvent } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { ClaudeStreamParser } from '../src/index.js';

/** Output captured from Claude Code 2.1.332 (`-p --output-format stream-json --verbose`). */
function parseFixture(name: string, resumed = false) {
  const parser = new ClaudeStreamParser(resumed);
  const lines = readFileSync(new URL(`fixtures/${name}.jsonl`, import.meta.url), 'utf8')
    .trim()
    .split('\n');
  const events: TrajectoryEvent[] = lines.flatMap((line) => parser.parse(line));
  return { parser, events };
}

describe('ClaudeStreamParser on captured output', () => {
  it('reads a turn that writes a file: session, text, tool call and result, usage, success', () => {
    const { parser, events } = parseFixture('write-and-finish');
    expect(events).toEqual([
      {
        type: 'session.start',
        sessionId: '7e21901b-0f2d-4024-b1d8-5cdd8e9d6ba7',
        resumed: false,
        model: 'claude-sonnet-4-5',
      },
      { type: 'message', role: 'assistant', text: 'I will write the file.' },
      {
        type: 'tool.call',
        id: 'toolu_1',
        name: 'Write',
        input: { file_path: '/tmp/explore/ws/hello.txt', content: 'hello\n' },
      },
      {
        type: 'tool.result',
        id: 'toolu_1',
        output: expect.stringContaining('File created successfully'),
        isError: false,
      },
      { type: 'message', role: 'assistant', text: 'Done.' },
      {
        type: 'usage',
        model: 'claude-sonnet-4-5',
        usage: {
          inputTokens: 200,
          outputTokens: 25,
          cacheReadTokens: 14,
          cacheWriteTokens: 6,
          costUsd: 0.0010017,
        },
      },
    ]);
    expect(parser.outcome).toEqual({ status: 'ok' });
    expect(parser.finalText).toBe('Done.');
    expect(parser.sessionId).toBe('7e21901b-0f2d-4024-b1d8-5cdd8e9d6ba7');
  });

  it('ends a resumed turn that hit --max-turns as failed, with this run’s usage only', () => {
    const { parser, events } = parseFixture('resumed-max-turns', true);
    expect(events[0]).toMatchObject({ type: 'session.start', resumed: true });
    expect(parser.outcome).toEqual({ status: 'failed', error: 'Reached maximum number of turns (1)' });
    // total_cost_usd is cumulative over the session; the per-model figure is this run's.
    expect(parser.usage).toMatchObject({ inputTokens: 100, outputTokens: 20, costUsd: 0.00061335 });
  });

  it('records API retries as model errors without ending the turn', () => {
    const { parser, events } = parseFixture('api-retries');
    expect(events.filter((e) => e.type === 'error')).toEqual([
      expect.objectContaining({ errorClass: 'model', message: expect.stringContaining('retry 1 of 10') }),
      expect.objectContaining({ message: expect.stringContaining('retry 2 of 10') }),
      expect.objectContaining({ message: expect.stringContaining('retry 3 of 10') }),
    ]);
    expect(parser.outcome).toBeUndefined();
  });

  it('reads a compaction with the tokens before and after it', () => {
    const { events, parser } = parseFixture('compact', true);
    expect(events.filter((e) => e.type === 'compaction')).toEqual([
      { type: 'compaction', trigger: 'manual', tokensBefore: 202, tokensAfter: 2785 },
    ]);
    expect(parser.outcome).toEqual({ status: 'ok' });
  });

  it('classifies API errors by their HTTP status and reads thinking blocks', () => {
    const parser = new ClaudeStreamParser(false);
    const events = parser.parse(
      JSON.stringify({
        type: 'assistant',
        message: {
          content: [
            { type: 'thinking', thinking: 'Plan first.' },
            { type: 'text', text: 'Hi' },
          ],
        },
      }),
    );
    expect(events).toEqual([
      { type: 'reasoning', text: 'Plan first.' },
      { type: 'message', role: 'assistant', text: 'Hi' },
    ]);
    const result = (status: number, text: string) => {
      const p = new ClaudeStreamParser(false);
      p.parse(
        JSON.stringify({
          type: 'result',
          subtype: 'success',
          is_error: true,
          api_error_status: status,
          result: text,
        }),
      );
      return p.outcome?.status;
    };
    expect(result(401, 'API Error: 401 invalid x-api-key')).toBe('error:auth');
    expect(result(429, 'API Error: 429 rate limited')).toBe('error:rate_limit');
    expect(result(400, 'API Error: 400 prompt is too long: 210000 tokens > 200000 maximum')).toBe(
      'error:context_overflow',
    );
    expect(result(529, 'API Error: 529 overloaded')).toBe('error:model');
  });

  it('rejects lines that are not stream-json', () => {
    const parser = new ClaudeStreamParser(false);
    expect(() => parser.parse('Error: Invalid API key')).toThrow(/not JSON/);
    expect(() => parser.parse('[1,2]')).toThrow(/without a type/);
    expect(parser.parse(JSON.stringify({ type: 'stream_event', event: {} }))).toEqual([]);
  });
});

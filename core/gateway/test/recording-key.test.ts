import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../src/index.js';
import { requestKey } from '../src/recording/key.js';
import type { RecordedExchange } from '../src/recording/recording.js';
import { ReplayBackend } from '../src/recording/replay.js';

function request(cwd: string, output: string, extra = ''): ModelRequest {
  return {
    api: 'anthropic',
    model: 'm',
    system: `Primary working directory: ${cwd}\nToday is 2026-11-25.`,
    messages: [
      { role: 'user', content: [{ type: 'text', text: `fix it${extra}` }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'toolu_a', name: 'Bash', input: { command: `ls ${cwd}` } }],
      },
      { role: 'user', content: [{ type: 'tool_result', callId: 'toolu_a', content: output }] },
    ],
    tools: [{ name: 'Bash', kind: 'function' }],
    stream: false,
    body: {},
    query: '',
  };
}

describe('recording keys', () => {
  it('match across runs that differ only in working directory, ids, dates and timings', () => {
    const first = request(
      '/tmp/run-a1/ws',
      'Chunk ID: 7472db\nWall time: 0.0012 seconds\n/tmp/run-a1/ws/main.py at 10:31:02 id 0b3c1f6e-1111-4a2b-9c3d-1234567890ab',
    );
    const second = request(
      '/tmp/run-b2/ws',
      'Chunk ID: 91ac0f\nWall time: 0.0410 seconds\n/tmp/run-b2/ws/main.py at 11:02:59 id 7d1e2a3b-2222-4c5d-8e9f-0987654321fe',
    );
    expect(requestKey(first)).toBe(requestKey(second));
    expect(requestKey(request('/tmp/run-a1/ws', 'x', ' now'))).not.toBe(
      requestKey(request('/tmp/run-a1/ws', 'x')),
    );
    expect(requestKey(request('/w', 'main.py'))).not.toBe(requestKey(request('/w', 'util.py')));
  });

  it('match across runs whose JSON tool results differ only in a duration', () => {
    const result = (ms: number, exit: number) =>
      request('/w', `{"success":true,"exit_code":${exit},"duration_ms":${ms}}\nstdout:\nok`);
    expect(requestKey(result(734, 0))).toBe(requestKey(result(1299, 0)));
    expect(requestKey(result(734, 0))).not.toBe(requestKey(result(734, 1)));
  });

  it("replays an answer with the recording agent's working directory replaced by the replaying agent's", async () => {
    const recorded = request('/tmp/run-a1/ws', 'ok');
    const exchange: RecordedExchange = {
      key: requestKey(recorded),
      trial: 't',
      model: 'm',
      api: 'anthropic',
      stream: false,
      at: '',
      cwd: '/tmp/run-a1/ws',
      request: { messages: 3, last: 'ok' },
      reply: {
        model: 'm',
        content: [
          {
            type: 'tool_call',
            id: 'toolu_b',
            name: 'Write',
            input: { file_path: '/tmp/run-a1/ws/a.py', content: '' },
          },
        ],
        stopReason: 'tool_use',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      response: { status: 200, contentType: 'application/json', body: '{"file_path":"/tmp/run-a1/ws/a.py"}' },
    };
    const context = { trialId: 't', modelName: 'm', signal: new AbortController().signal };
    const replay = new ReplayBackend([exchange, exchange], 'rec', []);
    const raw = await replay.complete(request('/tmp/run-b2/ws', 'ok'), context);
    if (raw.kind !== 'raw') throw new Error('expected the recorded bytes');
    let body = '';
    for await (const chunk of raw.body) body += Buffer.from(chunk).toString();
    expect(body).toBe('{"file_path":"/tmp/run-b2/ws/a.py"}');
    const rendered = await replay.complete({ ...request('/tmp/run-c3/ws', 'ok'), api: 'chat' }, context);
    expect(rendered).toMatchObject({
      kind: 'reply',
      reply: { content: [{ input: { file_path: '/tmp/run-c3/ws/a.py' } }] },
    });
  });
});

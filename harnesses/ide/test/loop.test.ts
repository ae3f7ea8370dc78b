import { APICallError } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import type { IdeSession } from '../src/session.js';
import { DirSandbox } from './support/dir-sandbox.js';
import { mockModel } from './support/mock-model.js';
import { results, session, turn } from './support/run.js';

let sandbox: DirSandbox;
afterEach(async () => sandbox?.close());

const why = 'to see the code';

function apiError(status: number): APICallError {
  return new APICallError({
    message: `HTTP ${status}`,
    url: 'http://model/v1/chat/completions',
    requestBodyValues: {},
    statusCode: status,
    isRetryable: status === 429 || status >= 500,
  });
}

describe('the loop', () => {
  it('runs tool calls in order inside the sandbox, keeps explanations, and ends on a text answer', async () => {
    sandbox = await DirSandbox.create({ 'calc.py': 'def add(a, b):\n    return a - b\n' });
    const model = mockModel([
      {
        text: 'Reading first.',
        calls: [{ name: 'read_file', input: { target_file: 'calc.py', explanation: why } }],
      },
      {
        calls: [
          {
            name: 'edit_file',
            input: {
              target_file: 'calc.py',
              line_edits: [{ type: 'replace', start_line: 2, content: '    return a + b' }],
              explanation: 'fix the operator in add',
            },
          },
          {
            name: 'run_terminal_cmd',
            input: { command: 'python3 -c "import calc; print(calc.add(2, 3))"', explanation: 'check' },
          },
        ],
      },
      { text: 'Fixed add in calc.py.' },
    ]);
    const { events, result } = await turn(session(sandbox, model));
    expect(result).toMatchObject({
      status: 'ok',
      finalText: 'Fixed add in calc.py.',
      usage: { inputTokens: 300, outputTokens: 30 },
    });
    expect(await sandbox.text('calc.py')).toBe('def add(a, b):\n    return a + b\n');
    const calls = events.filter((e) => e.type === 'tool.call');
    expect(calls.map((c) => [c.name, c.explanation])).toEqual([
      ['read_file', why],
      ['edit_file', 'fix the operator in add'],
      ['run_terminal_cmd', 'check'],
    ]);
    expect(results(events)[2]).toMatchObject({ exit_code: 0, stdout: '5\n' });
    expect(events.filter((e) => e.type === 'usage')).toHaveLength(3);
    // The second call saw the first call's result, keyed by its id.
    const second = JSON.stringify(model.prompts[1]!.prompt);
    expect(second).toContain('call-0-0');
    expect(second).toContain('1|def add(a, b):');
    expect(model.prompts[0]!.temperature).toBe(0.1);
    expect(model.prompts[0]!.maxOutputTokens).toBe(4000);
    expect(model.prompts[0]!.tools?.map((t) => t.name)).toContain('search_replace');
  });

  it('tells the model a broken edit was refused and lets it recover', async () => {
    sandbox = await DirSandbox.create({ 'm.py': 'x = 1\n' });
    const model = mockModel([
      {
        calls: [
          { name: 'write_file', input: { file_path: 'm.py', content: 'x = (1\n', explanation: 'edit' } },
        ],
      },
      {
        calls: [
          { name: 'write_file', input: { file_path: 'm.py', content: 'x = 2\n', explanation: 'edit again' } },
        ],
      },
      { text: 'done' },
    ]);
    const { events } = await turn(session(sandbox, model));
    const [refused, written] = results(events);
    expect(refused).toMatchObject({ success: false, syntax_error: true });
    expect(written).toMatchObject({ success: true });
    expect(events.find((e) => e.type === 'tool.result')).toMatchObject({ isError: true });
    expect(await sandbox.text('m.py')).toBe('x = 2\n');
  });

  it('stops at the iteration cap with a failed turn', async () => {
    sandbox = await DirSandbox.create({ 'a.txt': 'a\n' });
    const model = mockModel(() => ({
      calls: [{ name: 'read_file', input: { target_file: 'a.txt', explanation: why } }],
    }));
    const { events, result } = await turn(session(sandbox, model, { maxIterations: 3 }));
    expect(model.prompts).toHaveLength(3);
    expect(result).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/iteration limit: 3 model calls/),
    });
    expect(events.some((e) => e.type === 'error' && e.errorClass === 'iteration_limit')).toBe(true);
  });

  it('retries transient model errors with exponential backoff', async () => {
    sandbox = await DirSandbox.create();
    const model = mockModel([apiError(500), apiError(429), { text: 'ok after retries' }]);
    const started = Date.now();
    const { events, result } = await turn(session(sandbox, model, { retryDelaySeconds: 0.05 }));
    expect(result).toMatchObject({ status: 'ok', finalText: 'ok after retries' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150 - 10);
    expect(events.filter((e) => e.type === 'error').map((e) => e.type === 'error' && e.message)).toEqual([
      expect.stringMatching(/attempt 1 failed.*retrying in 50 ms/),
      expect.stringMatching(/attempt 2 failed.*retrying in 100 ms/),
    ]);
  });

  it('classifies a model failure once retries are spent, and does not retry what cannot succeed', async () => {
    sandbox = await DirSandbox.create();
    const busy = mockModel(() => apiError(503));
    const spent = await turn(session(sandbox, busy, { retries: 2 }));
    expect(busy.prompts).toHaveLength(3);
    expect(spent.result).toMatchObject({ status: 'error:model', error: expect.stringMatching(/HTTP 503/) });
    const denied = mockModel(() => apiError(401));
    const auth = await turn(session(sandbox, denied));
    expect(denied.prompts).toHaveLength(1);
    expect(auth.result.status).toBe('error:auth');
    const limited = mockModel(() => apiError(429));
    expect((await turn(session(sandbox, limited, { retries: 1 }))).result.status).toBe('error:rate_limit');
  });

  it('times out a model call that takes too long and retries it', async () => {
    sandbox = await DirSandbox.create();
    const model = mockModel(async (options, n) => {
      if (n === 0)
        await new Promise((_, reject) =>
          options.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason)),
        );
      return { text: 'second try' };
    });
    const { result } = await turn(session(sandbox, model, { callTimeoutSeconds: 0.1 }));
    expect(result).toMatchObject({ status: 'ok', finalText: 'second try' });
  });

  it('truncates a long history to the first user message and the recent whole turns', async () => {
    sandbox = await DirSandbox.create({ 'big.txt': `${'x'.repeat(3000)}\n` });
    const model = mockModel((_options, n) =>
      n < 12
        ? { calls: [{ name: 'read_file', input: { target_file: 'big.txt', explanation: `read ${n}` } }] }
        : { text: 'done' },
    );
    const { events } = await turn(
      session(sandbox, model, { truncateAfterMessages: 6, contextWindow: 4000, contextShare: 0.8 }),
      'FIRST PROMPT',
    );
    const compactions = events.filter((e) => e.type === 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    const last = model.prompts.at(-1)!.prompt;
    expect(last[0]).toMatchObject({ role: 'system' });
    expect(JSON.stringify(last[1])).toContain('FIRST PROMPT');
    expect(last[2]!.role).toBe('assistant');
    // Each read is ~800 tokens: three whole turns fit the 3200-token budget, of 12 made.
    expect(last.length).toBe(2 + 3 * 2);
    // Every tool result still follows its call.
    for (let i = 1; i < last.length; i++)
      if (last[i]!.role === 'tool') expect(['assistant', 'tool']).toContain(last[i - 1]!.role);
  });

  it('continues the same history across turns and resumes it from state()', async () => {
    sandbox = await DirSandbox.create();
    const model = mockModel([{ text: 'first answer' }, { text: 'second answer' }, { text: 'third answer' }]);
    const s = session(sandbox, model);
    await turn(s, 'step one');
    await turn(s, 'step two');
    const texts = JSON.stringify(model.prompts[1]!.prompt);
    expect(texts).toContain('step one');
    expect(texts).toContain('first answer');
    const saved = JSON.parse(JSON.stringify(s.state()));
    const resumed = session(sandbox, model, {}, saved);
    const { events } = await turn(resumed, 'step three');
    expect(events[0]).toMatchObject({ type: 'session.start', resumed: true, sessionId: s.id });
    const third = JSON.stringify(model.prompts[2]!.prompt);
    expect(third).toContain('second answer');
    expect(third).toContain('step three');
    expect(saved.iterations).toBe(2);
  });

  it('ends promptly with the status in the abort reason, mid model call or mid command', async () => {
    sandbox = await DirSandbox.create();
    const hanging = mockModel(
      (options) =>
        new Promise((_, reject) =>
          options.abortSignal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort('timeout'), 100);
    const started = Date.now();
    const { result } = await turn(session(sandbox, hanging), 'go', controller.signal);
    expect(result.status).toBe('timeout');
    // The model never answers: ending at all shows the abort reached it.
    expect(Date.now() - started).toBeLessThan(120_000);

    const sleeper = mockModel([
      { calls: [{ name: 'run_terminal_cmd', input: { command: 'sleep 600', explanation: 'wait' } }] },
    ]);
    const second = new AbortController();
    setTimeout(() => second.abort('cancelled'), 200);
    const t0 = Date.now();
    const aborted = await turn(session(sandbox, sleeper), 'go', second.signal);
    expect(aborted.result.status).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(120_000);
  });

  it('is a session the kernel can close, stopping background commands', async () => {
    sandbox = await DirSandbox.create();
    const model = mockModel([
      {
        calls: [
          {
            name: 'run_terminal_cmd',
            input: { command: 'sleep 60', is_background: true, explanation: 'server' },
          },
        ],
      },
      { text: 'started' },
    ]);
    const s: IdeSession = session(sandbox, model);
    await turn(s);
    await s.close();
  });
});

describe('the completion guard', () => {
  it('with nudge, a model that stops before editing is told to implement, and then may finish', async () => {
    sandbox = await DirSandbox.create({ 'a.py': 'x = 1\n' });
    const model = mockModel([
      { text: 'I think I am done.' },
      {
        calls: [
          { name: 'write_file', input: { file_path: 'a.py', content: 'x = 2\n', explanation: 'implement' } },
        ],
      },
      { text: 'Done now.' },
    ]);
    const { events, result } = await turn(session(sandbox, model, { nudge: true }));
    expect(result).toMatchObject({ status: 'ok', finalText: 'Done now.' });
    expect(
      events
        .filter((e) => e.type === 'message' && e.role === 'user')
        .map((e) => e.type === 'message' && e.text),
    ).toEqual(['Fix it.', expect.stringMatching(/^Stop exploring and implement now/)]);
    const plain = mockModel([{ text: 'I think I am done.' }]);
    expect((await turn(session(sandbox, plain))).result.finalText).toBe('I think I am done.');
  });
});

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { Logger } from '@longhaul/core';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { makeTask, startGateway } from './helpers.js';
import { anthropicMessage, fakeUpstream, sendJson } from './upstream.js';

const providerKey = 'sk-ant-access-test-SECRET';

/** An agent model, a judge model, the oracle and a provider model at a fake upstream. */
async function experimentModels(log?: Logger, extra: Parameters<typeof startGateway>[1] = {}) {
  const upstream = await fakeUpstream((_req, res) => sendJson(res, anthropicMessage('from provider', 5, 2)));
  const started = await startGateway(
    {
      models: {
        agent: { backend: 'scripted', replies: [{ text: 'one' }, { text: 'two' }, { text: 'three' }] },
        judge: { backend: 'scripted', replies: [{ when: '', text: 'verdict' }] },
        oracle: { backend: 'oracle' },
        sonnet: {
          backend: 'passthrough',
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          apiKeyEnv: 'ACCESS_TEST_KEY',
          baseUrl: upstream.url,
        },
      },
    },
    { env: { ACCESS_TEST_KEY: providerKey }, log, ...extra },
  );
  return { ...started, upstream };
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}

const ask = (baseUrl: string, token: string, model: string, text = 'hello') =>
  new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 }).messages.create({
    model,
    max_tokens: 10,
    messages: [{ role: 'user', content: text }],
  });

/** A POST with a raw body, for sizes and encodings the SDKs would not send. */
function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  chunked = false,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/v1/messages`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...headers,
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    // The gateway may answer and close before the whole body is sent.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    if (chunked) for (let at = 0; at < body.length; at += 1024) req.write(body.subarray(at, at + 1024));
    else req.write(body);
    req.end();
  });
}

function messageBody(model: string, padding: number): Buffer {
  return Buffer.from(
    JSON.stringify({ model, max_tokens: 5, messages: [{ role: 'user', content: 'x'.repeat(padding) }] }),
  );
}

describe('gateway access', () => {
  it('binds each token to one trial and one model, and hands out one token per model', async () => {
    const { gateway, baseUrl, token } = await experimentModels();
    const judge = await gateway.endpoint('trial-1', '127.0.0.1', 'judge');
    const again = await gateway.endpoint('trial-1', '127.0.0.1', 'judge');
    expect(judge.model).toBe('judge');
    expect(judge.token).not.toBe(token);
    expect(again.token).toBe(judge.token);
    expect((await ask(baseUrl, token, 'agent')).content).toEqual([{ type: 'text', text: 'one' }]);
    expect((await ask(baseUrl, judge.token, 'judge')).content).toEqual([{ type: 'text', text: 'verdict' }]);
    // Each token is refused the other's model.
    await expect(ask(baseUrl, token, 'judge')).rejects.toMatchObject({ status: 403 });
    await expect(ask(baseUrl, judge.token, 'agent')).rejects.toMatchObject({ status: 403 });
    await expect(gateway.endpoint('trial-1', '127.0.0.1', 'gpt-9')).rejects.toThrow(
      /model 'gpt-9' is not one of the experiment's models \(agent, judge, oracle, sonnet\)/,
    );
  });

  it('refuses another model with 403 before any backend sees it, and records it as the trial fault', async () => {
    const log = recordingLog();
    const { gateway, baseUrl, token, upstream, runDir } = await experimentModels(log);
    const task = await makeTask([{ 'answer.py': 'print("the reference solution")\n' }]);
    gateway.focus('trial-1', { task, steps: [task.steps[0]!] });

    const oracle = await ask(baseUrl, token, 'oracle').catch((e: unknown) => e);
    expect(oracle).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(oracle).toMatchObject({
      status: 403,
      error: {
        type: 'error',
        error: {
          type: 'permission_error',
          message: "model 'oracle' is not available to this token, which allows the model 'agent' only",
        },
      },
    });
    expect(JSON.stringify(oracle)).not.toContain('reference solution');
    // The provider model: in the OpenAI format too, and the provider receives nothing.
    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token, maxRetries: 0 });
    await expect(
      openai.chat.completions.create({ model: 'sonnet', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 403, error: { type: 'permission_error' } });
    await expect(ask(baseUrl, token, 'sonnet')).rejects.toMatchObject({ status: 403 });
    // A model that is not configured at all is answered the same way: nothing about what exists leaks.
    await expect(ask(baseUrl, token, 'no-such-model')).rejects.toMatchObject({ status: 403 });
    expect(upstream.requests).toEqual([]);
    // The scripted agent model's first reply is still there: no backend was called.
    expect((await ask(baseUrl, token, 'agent')).content).toEqual([{ type: 'text', text: 'one' }]);

    const faults = gateway.takeErrors('trial-1');
    expect(faults.map((f) => [f.errorClass, f.message])).toEqual([
      ['forbidden', "model 'oracle' is not available to this token, which allows the model 'agent' only"],
      [
        'forbidden',
        "model 'sonnet' is not available to this token, which allows the model 'agent' only (2 times)",
      ],
      [
        'forbidden',
        "model 'no-such-model' is not available to this token, which allows the model 'agent' only",
      ],
    ]);
    expect(gateway.takeErrors('trial-1')).toEqual([]);
    await gateway.close();
    const requests = (await readFile(join(runDir, 'gateway/requests.jsonl'), 'utf8')).trim().split('\n');
    expect(requests.map((line) => JSON.parse(line)).map((e) => [e.model, e.status, e.errorClass])).toEqual([
      ['oracle', 403, 'forbidden'],
      ['sonnet', 403, 'forbidden'],
      ['sonnet', 403, 'forbidden'],
      ['no-such-model', 403, 'forbidden'],
      ['agent', 200, undefined],
    ]);
    // Refusals reach the log through the trial's faults, not one warning per request.
    expect(log.lines.filter((line) => line.includes('forbidden') || line.includes('not available'))).toEqual(
      [],
    );
  });

  it('keeps a refusal loop to one fault with a count, and many distinct ones bounded', async () => {
    const { gateway, baseUrl, token } = await experimentModels();
    for (let i = 0; i < 30; i++) await ask(baseUrl, token, 'oracle').catch(() => undefined);
    for (let i = 0; i < 40; i++) await ask(baseUrl, token, `m${i}`).catch(() => undefined);
    const faults = gateway.takeErrors('trial-1');
    expect(faults[0]!.message).toMatch(/model 'oracle' .* \(30 times\)$/);
    expect(faults).toHaveLength(21);
    expect(faults.at(-1)!.message).toBe('more faults unlike the ones before (21 times)');
    // A model name made to flood the log and the trajectory is cut short and kept on one line.
    await ask(baseUrl, token, `${'x\n'.repeat(100_000)}`).catch(() => undefined);
    const [flood] = gateway.takeErrors('trial-1');
    expect(flood!.message).toMatch(/^model '(x\?){60}' is not available/);
  });

  it('lists only the models the token may use', async () => {
    const { gateway, baseUrl, token } = await experimentModels();
    const judge = await gateway.endpoint('trial-1', '127.0.0.1', 'judge');
    const anthropic = new Anthropic({ baseURL: baseUrl, apiKey: token });
    expect((await anthropic.models.list()).data.map((m) => m.id)).toEqual(['agent']);
    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: judge.token });
    expect((await openai.models.list()).data.map((m) => m.id)).toEqual(['judge']);
  });

  it("answers the oracle and scripted models from the token's trial only", async () => {
    const { gateway, baseUrl } = await experimentModels();
    const task = await makeTask([{ 'a.py': 'A = 1\n' }, { 'b.py': 'B = 2\n' }]);
    const mine = await gateway.endpoint('trial-1', '127.0.0.1', 'oracle');
    const theirs = await gateway.endpoint('trial-2', '127.0.0.1', 'oracle');
    gateway.focus('trial-1', { task, steps: [task.steps[0]!] });
    gateway.focus('trial-2', { task, steps: [task.steps[1]!] });
    // What a request says about itself (metadata, headers) never picks the trial: the token does.
    const oracle = (token: string) =>
      new Anthropic({
        baseURL: baseUrl,
        apiKey: token,
        maxRetries: 0,
        defaultHeaders: { 'x-longhaul-trial': 'trial-2' },
      }).messages.create({
        model: 'oracle',
        max_tokens: 100,
        metadata: { user_id: 'trial-2' },
        tools: [
          {
            name: 'write_file',
            input_schema: {
              type: 'object',
              properties: { path: { type: 'string' }, content: { type: 'string' } },
            },
          },
        ],
        messages: [{ role: 'user', content: 'do it' }],
      });
    const written = (await oracle(mine.token)).content.filter((block) => block.type === 'tool_use');
    expect(written.map((block) => (block.input as { path: string }).path)).toEqual(['a.py']);
    const theirWrites = (await oracle(theirs.token)).content.filter((block) => block.type === 'tool_use');
    expect(theirWrites.map((block) => (block.input as { path: string }).path)).toEqual(['b.py']);

    // Scripted replies are served in order per trial, whoever else asks.
    const agent1 = await gateway.endpoint('trial-1', '127.0.0.1', 'agent');
    const agent2 = await gateway.endpoint('trial-2', '127.0.0.1', 'agent');
    expect((await ask(baseUrl, agent1.token, 'agent')).content).toEqual([{ type: 'text', text: 'one' }]);
    expect((await ask(baseUrl, agent2.token, 'agent')).content).toEqual([{ type: 'text', text: 'one' }]);
    expect((await ask(baseUrl, agent1.token, 'agent')).content).toEqual([{ type: 'text', text: 'two' }]);
  });

  it("revokes every token of a trial on release, and leaves other trials' tokens alone", async () => {
    const { gateway, baseUrl, token } = await experimentModels();
    const judge = await gateway.endpoint('trial-1', '127.0.0.1', 'judge');
    const other = await gateway.endpoint('trial-2', '127.0.0.1', 'judge');
    gateway.release('trial-1');
    await expect(ask(baseUrl, token, 'agent')).rejects.toMatchObject({ status: 401 });
    await expect(ask(baseUrl, judge.token, 'judge')).rejects.toMatchObject({ status: 401 });
    expect((await fetch(`${baseUrl}/v1/models`, { headers: { 'x-api-key': token } })).status).toBe(401);
    expect((await ask(baseUrl, other.token, 'judge')).content).toEqual([{ type: 'text', text: 'verdict' }]);
    // A later endpoint for the trial is a new token; the old one stays revoked.
    const renewed = await gateway.endpoint('trial-1', '127.0.0.1', 'agent');
    expect(renewed.token).not.toBe(token);
    await expect(ask(baseUrl, token, 'agent')).rejects.toMatchObject({ status: 401 });
  });

  it('rate-limits requests without a valid token per address, and counts them instead of logging each', async () => {
    const log = recordingLog();
    const { gateway, baseUrl, runDir } = await experimentModels(log, {
      unauthenticated: { burst: 5, perSecond: 0.01 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await fetch(`${baseUrl}/v1/messages`, {
        method: 'POST',
        headers: i % 2 ? { 'x-api-key': 'lh-guessed' } : {},
        body: '{}',
      });
      statuses.push(response.status);
      if (i === 39) expect(await response.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    const warnings = () => log.lines.filter((line) => line.startsWith('warn'));
    expect(warnings()).toEqual([
      'warn gateway: refused POST /v1/messages from 127.0.0.1: no valid token; further requests without one are counted, not logged one by one',
    ]);
    await gateway.close();
    expect(warnings().slice(1)).toEqual([
      'warn gateway: refused 40 requests without a valid token since the last summary (35 past the rate limit, answered 429); from 127.0.0.1 40',
      'warn gateway: 40 requests without a valid token in all, 35 of them answered 429 past the rate limit (5 at once, 0.01 per second per address)',
    ]);
    // Nothing per refused request in the request log.
    expect(existsSync(join(runDir, 'gateway/requests.jsonl'))).toBe(false);
  });

  it('refuses an oversize body with 413, declared or streamed, and never calls the backend', async () => {
    const { gateway, baseUrl, token } = await experimentModels(undefined, { maxBodyBytes: 64 * 1024 });
    const big = messageBody('agent', 100 * 1024);
    const declared = await post(baseUrl, { 'x-api-key': token }, big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({
      error: { type: 'request_too_large', message: "request body exceeds the gateway's limit of 0.1 MiB" },
    });
    expect((await post(baseUrl, { 'x-api-key': token }, big, true)).status).toBe(413);
    expect(gateway.takeErrors('trial-1').map((f) => f.errorClass)).toEqual(['invalid_request']);
    // The scripted model's first reply was never used up.
    const small = await post(baseUrl, { 'x-api-key': token }, messageBody('agent', 1024));
    expect(small.status).toBe(200);
    expect(JSON.parse(small.body).content).toEqual([{ type: 'text', text: 'one' }]);
  });

  it('bounds the request body bytes held at once: past it a request is answered 503 until room is made', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const upstream = await fakeUpstream(async (_req, res) => {
      await held;
      sendJson(res, anthropicMessage('late', 1, 1));
    });
    const { baseUrl, token } = await startGateway(
      {
        models: {
          slow: {
            backend: 'passthrough',
            provider: 'anthropic',
            model: 'claude-sonnet-4-5',
            apiKeyEnv: 'ACCESS_TEST_KEY',
            baseUrl: upstream.url,
          },
        },
      },
      { env: { ACCESS_TEST_KEY: providerKey }, maxBodyBytes: 48 * 1024, maxInFlightBytes: 64 * 1024 },
    );
    const first = post(baseUrl, { 'x-api-key': token }, messageBody('slow', 40 * 1024));
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await post(baseUrl, { 'x-api-key': token }, messageBody('slow', 40 * 1024));
    expect(second.status).toBe(503);
    expect(JSON.parse(second.body).error.message).toMatch(/holds 0\.1 MiB of request bodies already; retry/);
    release();
    expect((await first).status).toBe(200);
    const third = await post(baseUrl, { 'x-api-key': token }, messageBody('slow', 40 * 1024));
    expect(third.status).toBe(200);
  });
});

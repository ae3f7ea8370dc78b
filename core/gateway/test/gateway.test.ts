import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { ConfigError } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../src/index.js';
import { startGateway, tempDir } from './helpers.js';

const scripted = { backend: 'scripted' as const, replies: [{ when: '', text: 'ok' }] };

describe('gateway', () => {
  it('listens on each host address a sandbox reaches it by, and never on a wildcard address', async () => {
    const { gateway } = await startGateway({ models: { fake: scripted } });
    const local = await gateway.endpoint('trial-2', '127.0.0.1');
    const bridge = await gateway.endpoint('trial-2', '127.0.0.2');
    expect(local.baseUrl).toBe(gateway.url);
    expect(bridge.baseUrl).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    expect(bridge.hostBaseUrl).toBe(gateway.url);
    expect(bridge.token).toBe(local.token);
    const client = new Anthropic({ baseURL: bridge.baseUrl, apiKey: bridge.token });
    const reply = await client.messages.create({
      model: 'fake',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(reply.content).toEqual([{ type: 'text', text: 'ok' }]);
    // Trials asking for the same new address at once share one socket.
    const [a, b] = await Promise.all([
      gateway.endpoint('trial-4', '127.0.0.3'),
      gateway.endpoint('trial-5', '127.0.0.3'),
    ]);
    expect(a.baseUrl).toBe(b.baseUrl);
    await expect(gateway.endpoint('trial-3', '0.0.0.0')).rejects.toThrow(
      /never listens on a wildcard address/,
    );
    await expect(gateway.endpoint('trial-3', '::')).rejects.toThrow(/never listens on a wildcard address/);
    await expect(gateway.endpoint('trial-3', '192.0.2.1')).rejects.toThrow(
      /cannot listen on 192\.0\.2\.1.*EADDRNOTAVAIL.*is the sandbox network up/,
    );
  });

  it('gives each trial its own token, forgets it on release, and logs each request without content', async () => {
    const { gateway, baseUrl, token, runDir } = await startGateway({ models: { fake: scripted } });
    const other = await gateway.endpoint('trial-2', '127.0.0.1', 'fake');
    expect(other.token).not.toBe(token);
    expect(other.model).toBe('fake');
    const ask = (key: string) =>
      new Anthropic({ baseURL: baseUrl, apiKey: key, maxRetries: 0 }).messages.create({
        model: 'fake',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x'.repeat(400) }],
      });
    await ask(other.token);
    expect(gateway.takeUsage('trial-2').inputTokens).toBe(100);
    expect(gateway.takeUsage('trial-1').inputTokens).toBe(0);
    gateway.release('trial-2');
    await expect(ask(other.token)).rejects.toMatchObject({ status: 401 });
    await expect(ask(token)).resolves.toBeDefined();
    await gateway.close();
    const log = (await readFile(join(runDir, 'gateway/requests.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // The request with the revoked token got no line: only a valid token's requests are logged.
    expect(log.map((entry) => [entry.trial, entry.status])).toEqual([
      ['trial-2', 200],
      ['trial-1', 200],
    ]);
    expect(log[0]).toMatchObject({
      model: 'fake',
      path: '/v1/messages',
      stream: false,
      usage: { inputTokens: 100 },
    });
    expect(JSON.stringify(log)).not.toContain(other.token);
  });

  it('reports a bad scripted file with its file, line and key', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'replies.yaml'), '- text: fine\n- toolCalls:\n    - input: {}\n');
    const error = await createGateway(
      { models: { fake: { backend: 'scripted', file: 'replies.yaml' } } },
      { runDir: dir, baseDir: dir },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const [issue] = (error as ConfigError).issues;
    expect(issue).toMatchObject({ file: join(dir, 'replies.yaml'), line: 3, key: '[1].toolCalls[0].name' });
  });

  it('rejects a bad models: configuration naming the key', async () => {
    const error = await createGateway(
      { models: { fake: { backend: 'passthrough', provider: 'anthropic', model: 'x' } as never } },
      { runDir: await tempDir(), configFile: 'exp.yaml' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]).toMatchObject({
      file: 'exp.yaml',
      key: 'models.fake.apiKeyEnv',
    });
  });

  it("answers unknown endpoints with 404 and lists only the token's model", async () => {
    const { baseUrl, token } = await startGateway({ models: { fake: scripted, other: scripted } });
    const models = await fetch(`${baseUrl}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
    const list = (await models.json()) as { data: { id: string }[] };
    expect(list.data.map((m) => m.id)).toEqual(['fake']);
    expect((await fetch(`${baseUrl}/v1/models`)).status).toBe(401);
    const missing = await fetch(`${baseUrl}/v1/embeddings`, {
      method: 'POST',
      headers: { 'x-api-key': token },
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { message: 'no such endpoint: POST /v1/embeddings' },
    });
  });
});

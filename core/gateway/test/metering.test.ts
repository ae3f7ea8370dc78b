import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { defaultPrices, findPrice } from '../src/index.js';
import { startGateway } from './helpers.js';
import { anthropicStream, fakeUpstream, sendStream } from './upstream.js';

describe('metering', () => {
  it('prices a dated model id by the longest key it starts with', async () => {
    const prices = await defaultPrices();
    expect(findPrice(prices, ['claude-sonnet-4-5-20250929'])).toEqual(prices['claude-sonnet-4-5']);
    expect(findPrice(prices, ['claude-sonnet-4-20250514'])).toEqual(prices['claude-sonnet-4']);
    expect(findPrice(prices, ['gpt-5-mini-2025-08-07'])).toEqual(prices['gpt-5-mini']);
    expect(findPrice(prices, ['my-model'])).toBeUndefined();
  });

  it("uses the experiment's prices over the built-in table, and warns about a model with none", async () => {
    const upstream = await fakeUpstream((_req, res) => sendStream(res, anthropicStream('hi')));
    const model = (id: string) => ({
      backend: 'passthrough' as const,
      provider: 'anthropic' as const,
      model: id,
      apiKeyEnv: 'K',
      baseUrl: upstream.url,
    });
    const warnings: string[] = [];
    const log = { info: () => {}, warn: (m: string) => warnings.push(m), error: () => {} };
    const { gateway, baseUrl, token } = await startGateway(
      {
        models: { sonnet: model('claude-sonnet-4-5'), custom: model('my-model') },
        prices: { sonnet: { input: 1, output: 2 } },
      },
      { env: { K: 'sk-x' }, log },
    );
    expect(warnings).toEqual([
      "gateway: no price for model 'custom' (custom, my-model); its cost is counted as 0",
    ]);
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token });
    await client.messages
      .stream({ model: 'sonnet', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage();
    // The stream reports 1000 input, 500 output, 3000 cache-read and 200 cache-write tokens; the
    // override has no cache prices, so cache tokens cost the input price.
    expect(gateway.takeUsage('trial-1').costUsd).toBeCloseTo(
      (1000 * 1 + 500 * 2 + 3000 * 1 + 200 * 1) / 1e6,
      12,
    );
  });
});

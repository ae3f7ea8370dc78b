#!/usr/bin/env node
// Added latency and throughput of the model gateway's passthrough backend, against a local fake
// provider (no network). Run after building: `npx turbo run build --filter=@longhaul/gateway`,
// then `node bench/gateway/latency.mjs [--requests N] [--concurrency C]`.
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGateway } from '@longhaul/gateway';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '32' },
    role: { type: 'string' },
    upstream: { type: 'string' },
  },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);

/** An Anthropic stream of `pieces` text deltas, as the real API shapes it. */
function stream(pieces) {
  const frame = (event, data) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
  const usage = {
    input_tokens: 1200,
    output_tokens: 1,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  return [
    frame('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        usage,
      },
    }),
    frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: pieces }, (_, i) =>
      frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `word${i} ` } }),
    ),
    frame('content_block_stop', { index: 0 }),
    frame('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: pieces },
    }),
    frame('message_stop', {}),
  ].join('');
}

const streamBody = stream(40);
const jsonBody = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [{ type: 'text', text: 'hello '.repeat(40) }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 1200, output_tokens: 40 },
});

/** Runs one part of the bench in its own process so client, gateway and provider do not share a CPU. */
async function serve(role, upstreamUrl) {
  if (role === 'upstream') {
    const server = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const streaming = JSON.parse(body).stream === true;
      res.writeHead(200, { 'content-type': streaming ? 'text/event-stream' : 'application/json' });
      res.end(streaming ? streamBody : jsonBody);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${server.address().port}` };
  }
  const runDir = await mkdtemp(join(tmpdir(), 'lh-bench-'));
  process.on('disconnect', () => rm(runDir, { recursive: true, force: true }).finally(() => process.exit(0)));
  const gateway = await createGateway(
    {
      models: {
        proxied: {
          backend: 'passthrough',
          provider: 'anthropic',
          model: 'm',
          apiKeyEnv: 'BENCH_KEY',
          baseUrl: upstreamUrl,
        },
        scripted: { backend: 'scripted', replies: [{ when: '', text: 'hello '.repeat(40) }] },
      },
    },
    { runDir, env: { BENCH_KEY: 'sk-bench' } },
  );
  const { token } = await gateway.endpoint('bench', '127.0.0.1');
  return { url: gateway.url, token };
}

function start(role, upstreamUrl) {
  const args = ['--role', role, ...(upstreamUrl ? ['--upstream', upstreamUrl] : [])];
  const child = fork(fileURLToPath(import.meta.url), args);
  return new Promise((resolve) => child.once('message', (info) => resolve({ child, ...info })));
}

// A request the size of an early agent turn: a system prompt and a few messages.
const messages = [{ role: 'user', content: 'x'.repeat(20_000) }];
function call(base, model, streaming, key) {
  return fetch(`${base}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 1024, stream: streaming, messages }),
  }).then(async (response) => {
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  });
}

/**
 * Times every case once per round, round after round, so a burst of load from elsewhere on the
 * machine hits all cases alike; returns each case's durations in round order.
 */
async function timeRounds(cases, rounds) {
  const times = cases.map(() => []);
  for (let round = 0; round < rounds; round++)
    for (const [index, [, fn]] of cases.entries()) {
      const start = performance.now();
      await fn();
      times[index].push(performance.now() - start);
    }
  return times;
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

async function throughput(fn, n, parallel) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next++ < n) await fn();
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

async function main() {
  const upstreamProcess = await start('upstream');
  const gatewayProcess = await start('gateway', upstreamProcess.url);
  const upstreamUrl = upstreamProcess.url;
  const gateway = { url: gatewayProcess.url };
  const token = gatewayProcess.token;
  const cases = [
    ['direct to provider, JSON', () => call(upstreamUrl, 'm', false, 'sk-bench')],
    ['via gateway, JSON', () => call(gateway.url, 'proxied', false, token)],
    ['direct to provider, stream', () => call(upstreamUrl, 'm', true, 'sk-bench')],
    ['via gateway, stream', () => call(gateway.url, 'proxied', true, token)],
    ['gateway scripted, stream', () => call(gateway.url, 'scripted', true, token)],
  ];

  await timeRounds(cases, 50); // warm up connections and the JIT
  const times = await timeRounds(cases, requests);
  console.log(
    `gateway bench: ${requests} rounds of sequential requests, throughput at concurrency ${concurrency}`,
  );
  console.log('case                              median ms   p95 ms   requests/s');
  for (const [index, [name, fn]] of cases.entries()) {
    const rate = await throughput(fn, requests, concurrency);
    const [median, p95] = [quantile(times[index], 0.5), quantile(times[index], 0.95)];
    console.log(
      `${name.padEnd(32)} ${median.toFixed(3).padStart(9)} ${p95.toFixed(3).padStart(8)} ${rate.toFixed(0).padStart(12)}`,
    );
  }
  // Added latency: the median over rounds of (via gateway - direct), paired within a round.
  const added = (via, direct) =>
    quantile(
      times[via].map((t, round) => t - times[direct][round]),
      0.5,
    );
  console.log(
    `median added latency per proxied request: JSON ${added(1, 0).toFixed(3)} ms, stream ${added(3, 2).toFixed(3)} ms`,
  );

  gatewayProcess.child.disconnect();
  upstreamProcess.child.disconnect();
}

if (values.role) {
  process.send(await serve(values.role, values.upstream));
  process.on('disconnect', () => process.exit(0));
} else {
  await main();
}

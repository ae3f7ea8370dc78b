import { setTimeout as sleep } from 'node:timers/promises';
import { formatSize } from '@longhaul/core';
import { z } from 'zod';
import { limits } from './limits.js';
import { sandboxUrl } from './local-url.js';
import { defineTool, fail } from './tool.js';
import { WebSocketClient } from './websocket.js';

const bodyLimit = 20_000;

export const apiCall = defineTool({
  name: 'api_call',
  description:
    "Make an HTTP request to a server running in the workspace (relative URLs go to the API base, e.g. '/api/users'). Returns status, headers, body and timing.",
  input: z.object({
    method: z.enum(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']).describe('HTTP method'),
    url: z.string().describe("Endpoint, relative like '/api/users' or http://localhost:PORT/..."),
    headers: z.record(z.string(), z.string()).optional().describe('Request headers'),
    body: z.unknown().optional().describe('JSON request body (POST/PUT/PATCH)'),
    query: z.record(z.string(), z.string()).optional().describe('Query parameters'),
    auth: z
      .object({
        bearer: z.string().optional().describe('Bearer token (Authorization: Bearer ...)'),
        username: z.string().optional().describe('Basic authentication user'),
        password: z.string().optional().describe('Basic authentication password'),
      })
      .optional()
      .describe('Bearer token or basic credentials'),
    timeout_seconds: z.number().positive().max(120).default(10).describe('Time limit of the request'),
  }),
  async run(input, ctx) {
    const url = await sandboxUrl(ctx, input.url, ctx.options.apiBaseUrl);
    for (const [key, value] of Object.entries(input.query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = { ...(input.headers ?? {}) };
    if (input.auth?.bearer) headers.Authorization = `Bearer ${input.auth.bearer}`;
    else if (input.auth?.username !== undefined)
      headers.Authorization = `Basic ${Buffer.from(`${input.auth.username}:${input.auth.password ?? ''}`).toString('base64')}`;
    const hasBody = input.body !== undefined && !['GET', 'HEAD', 'OPTIONS'].includes(input.method);
    if (hasBody && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['Content-Type'] = 'application/json';
    const started = Date.now();
    try {
      const response = await fetch(url, {
        method: input.method,
        headers,
        body: hasBody
          ? typeof input.body === 'string'
            ? input.body
            : JSON.stringify(input.body)
          : undefined,
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(input.timeout_seconds * 1000)]),
      });
      const { text, cut } = await boundedBody(response, limits.responseBytes);
      let data: unknown = text.slice(0, bodyLimit);
      try {
        data = JSON.parse(text);
      } catch {}
      return {
        ...(cut
          ? {
              truncated: `the body is longer than ${formatSize(limits.responseBytes)}; only its start was read`,
            }
          : {}),
        success: response.ok,
        status_code: response.status,
        headers: Object.fromEntries(response.headers),
        data,
        duration_ms: Date.now() - started,
        method: input.method,
        url: input.url,
      };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return fail(`request failed: ${(error as Error).message}`, { duration_ms: Date.now() - started });
    }
  },
});

/** A response body up to `maxBytes` (the rest is not read: a server may send without end). */
export async function boundedBody(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; cut: boolean }> {
  if (!response.body) return { text: '', cut: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > maxBytes) {
      cut = true;
      await reader.cancel().catch(() => {});
      break;
    }
  }
  return { text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), cut };
}

/** A mongosh script running one operation given as JSON (embedded as a literal, never spliced). */
function mongoScript(spec: unknown): string {
  return `
const s = ${JSON.stringify(spec)};
const c = (s.database ? db.getSiblingDB(s.database) : db).getCollection(s.collection);
const q = s.query || {};
let r;
switch (s.query_type) {
  case 'find': r = c.find(q).limit(s.limit).toArray(); break;
  case 'findOne': r = c.findOne(q); break;
  case 'count': r = c.countDocuments(q); break;
  case 'insert': r = Array.isArray(s.data) ? c.insertMany(s.data) : c.insertOne(s.data || {}); break;
  case 'update': r = c.updateMany(q, { $set: s.data || {} }); break;
  case 'delete': r = c.deleteMany(q); break;
  case 'aggregate': r = c.aggregate(s.pipeline || []).toArray(); break;
}
print(EJSON.stringify({ result: r }, { relaxed: true }));
`;
}

export const databaseQuery = defineTool({
  name: 'database_query',
  description:
    "Run a MongoDB operation (find, findOne, count, insert, update, delete, aggregate) against the workspace's database, through mongosh inside the sandbox.",
  input: z.object({
    query_type: z
      .enum(['find', 'findOne', 'count', 'insert', 'update', 'delete', 'aggregate'])
      .describe('The operation'),
    collection: z.string().min(1).describe('Collection name'),
    database: z.string().optional().describe('Database name (default: the one in the connection URI)'),
    query: z.record(z.string(), z.unknown()).optional().describe('Filter (MongoDB syntax)'),
    data: z.unknown().optional().describe('Document(s) to insert, or fields to $set on update'),
    pipeline: z.array(z.record(z.string(), z.unknown())).optional().describe('Aggregation pipeline'),
    limit: z.number().int().positive().max(1000).default(50).describe('Most documents find returns'),
  }),
  async run(input, ctx) {
    const result = await ctx.sandbox.exec(
      ['mongosh', '--quiet', ctx.options.mongoUri, '--eval', mongoScript(input)],
      { timeoutMs: 60_000, signal: ctx.signal, maxOutputBytes: limits.responseBytes },
    );
    if (result.exitCode === 127)
      return fail('database_query needs mongosh in the sandbox, and it is not installed');
    if (result.exitCode !== 0)
      return fail(
        `mongosh exited ${result.exitCode}: ${(result.stderr || result.stdout).trim().slice(0, 2000)}`,
      );
    if (result.truncated)
      return fail(
        `the result is larger than ${formatSize(limits.responseBytes)}; ask for less (a lower limit, a narrower query, a projection in an aggregate)`,
      );
    const line = result.stdout.trim().split('\n').at(-1) ?? '';
    try {
      const parsed = JSON.parse(line) as { result: unknown };
      const rows = Array.isArray(parsed.result) ? parsed.result.length : undefined;
      return {
        success: true,
        query_type: input.query_type,
        collection: input.collection,
        result: parsed.result,
        ...(rows === undefined ? {} : { count: rows }),
      };
    } catch {
      return fail(`unexpected mongosh output: ${line.slice(0, 2000)}`);
    }
  },
});

interface Received {
  event: string;
  data: unknown;
}

export const websocketTest = defineTool({
  name: 'websocket_test',
  description:
    'Connect to a Socket.IO or plain WebSocket server in the workspace, emit events (or send messages) and collect what comes back for a while.',
  input: z.object({
    url: z
      .string()
      .default('/')
      .describe('Server URL (relative to the API base, or ws://localhost:PORT/...)'),
    protocol: z
      .enum(['socket.io', 'websocket'])
      .default('socket.io')
      .describe('Socket.IO (engine.io v4) or a plain WebSocket'),
    emit: z
      .array(
        z.object({
          event: z.string().describe('Event name (Socket.IO)'),
          data: z.unknown().optional().describe('Its payload, any JSON'),
        }),
      )
      .default([])
      .describe('Events to emit in order (plain WebSocket: data is sent as JSON, event ignored)'),
    listen_for: z.array(z.string()).default([]).describe('Stop early once each of these events arrived'),
    listen_seconds: z.number().positive().max(60).default(3).describe('How long to collect messages'),
  }),
  async run(input, ctx) {
    const base = ctx.options.apiBaseUrl.replace(/^http/, 'ws');
    const url = await sandboxUrl(ctx, input.url, base);
    const socketIo = input.protocol === 'socket.io';
    if (socketIo) {
      url.pathname = url.pathname === '/' ? '/socket.io/' : url.pathname;
      url.searchParams.set('EIO', '4');
      url.searchParams.set('transport', 'websocket');
    }
    const received: Received[] = [];
    let connected = !socketIo;
    let client: WebSocketClient | undefined;
    const onText = (text: string, socket: WebSocketClient) => {
      if (!socketIo) {
        let data: unknown = text;
        try {
          data = JSON.parse(text);
        } catch {}
        received.push({ event: 'message', data });
      } else if (text.startsWith('0')) socket.send('40');
      else if (text === '2') socket.send('3');
      else if (text.startsWith('40')) connected = true;
      else if (text.startsWith('42')) {
        // Called from the socket's data events: a malformed packet must not throw there.
        try {
          const [event, ...args] = JSON.parse(text.slice(2)) as [string, ...unknown[]];
          received.push({ event: String(event), data: args.length === 1 ? args[0] : args });
        } catch {
          received.push({ event: 'malformed', data: text.slice(0, limits.lineChars) });
        }
      }
    };
    const deadline = Date.now() + input.listen_seconds * 1000;
    try {
      client = await WebSocketClient.connect(url, onText, 10_000, limits.responseBytes);
      while (!connected && Date.now() < deadline && !client.isClosed)
        await sleep(20, undefined, { signal: ctx.signal });
      if (!connected) return fail('the Socket.IO handshake did not complete', { received });
      for (const { event, data } of input.emit)
        client.send(
          socketIo
            ? `42${JSON.stringify(data === undefined ? [event] : [event, data])}`
            : JSON.stringify(data ?? event),
        );
      const done = () =>
        input.listen_for.length > 0 &&
        input.listen_for.every((event) => received.some((r) => r.event === event));
      while (Date.now() < deadline && !done() && !client.isClosed)
        await sleep(20, undefined, { signal: ctx.signal });
      const missing = input.listen_for.filter((event) => !received.some((r) => r.event === event));
      return {
        success: missing.length === 0,
        connected: true,
        received,
        ...(client.overflowed
          ? {
              truncated: `the server sent more than ${formatSize(limits.responseBytes)}; the connection was closed there`,
            }
          : {}),
        ...(missing.length > 0 ? { error: `never received: ${missing.join(', ')}` } : {}),
      };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return fail(`websocket_test failed: ${(error as Error).message}`, { received });
    } finally {
      client?.close();
    }
  },
});

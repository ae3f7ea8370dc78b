import {
  ClassifiedError,
  type FileEntry,
  type HttpCase,
  type HttpRequest,
  prepareCaseWorkspace,
  type Sandbox,
} from '@longhaul/core';
import type { Check } from '../check-output.js';
import type { HttpResponseData } from './check-response.js';
import { heldOnHost, leasePort, saysPortInUse, sharesHostPort } from './free-port.js';
import { type RunningServer, ServerNotReady, startServer, stopServer } from './server.js';

export interface HttpExchange {
  /** Position in the case's `requests`. */
  index: number;
  method?: string;
  path?: string;
  restart?: true;
  response?: HttpResponseData;
  error?: string;
}

export interface HttpCaseRun {
  checks: Check[];
  exchanges: HttpExchange[];
  /** What the server wrote, for the raw record. */
  server: { stdout: string; stderr: string };
}

export interface HttpRunOptions {
  entrypoint: string[];
  timeoutMs: number;
  signal: AbortSignal;
  /** The workspace as listed before the case (recursive), to find what the case must clear. */
  baseline?: readonly FileEntry[];
}

/** Ports tried for a server whose port another process took, before the case is given up. */
const portAttempts = 4;

const placeholder = /\{\{\s*([A-Za-z_]\w*)\s*\}\}/g;

function fill(text: string, saved: Map<string, unknown>): string {
  return text.replace(placeholder, (whole, name: string) =>
    name !== 'now' && saved.has(name) ? String(saved.get(name)) : whole,
  );
}

function fillJson(value: unknown, saved: Map<string, unknown>): unknown {
  if (typeof value === 'string') {
    const only = /^\{\{\s*([A-Za-z_]\w*)\s*\}\}$/.exec(value);
    // A value that is just "{{name}}" keeps the saved value's JSON type (a number stays a number).
    if (only && only[1] !== 'now' && saved.has(only[1]!)) return saved.get(only[1]!);
    return fill(value, saved);
  }
  if (Array.isArray(value)) return value.map((item) => fillJson(item, saved));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillJson(item, saved)]));
  }
  return value;
}

function at(value: unknown, dotPath: string): unknown {
  let current = value;
  for (const part of dotPath.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

async function send(
  baseUrl: string,
  request: HttpRequest,
  saved: Map<string, unknown>,
  options: HttpRunOptions,
): Promise<HttpResponseData> {
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(request.headers ?? {}).map(([name, value]) => [name, fill(value, saved)]),
  );
  let body: string | undefined;
  if ('json' in request) {
    body = JSON.stringify(fillJson(request.json, saved));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
  } else if (request.body !== undefined) {
    body = fill(request.body, saved);
  }
  const response = await fetch(`${baseUrl}${fill(request.path, saved)}`, {
    method: request.method,
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body: await response.text(),
  };
}

function failure(target: string, reason: string, summary = reason): Check {
  return { target, passed: false, reason, summary };
}

/**
 * Runs one HTTP case: starts the server on a free port, sends the requests in order (restarting
 * the server where the case says so), checks every response and stops the server. The first
 * failed check ends the case, since later requests usually depend on earlier ones.
 */
export async function runHttpCase(
  sandbox: Sandbox,
  spec: HttpCase,
  scorerOptions: HttpRunOptions,
): Promise<HttpCaseRun> {
  // A signal of the case's own, so the listeners servers and requests add to it go away with the
  // case instead of piling up on the scorer's signal over hundreds of cases.
  const controller = new AbortController();
  const forward = () => controller.abort(scorerOptions.signal.reason);
  scorerOptions.signal.addEventListener('abort', forward, { once: true });
  if (scorerOptions.signal.aborted) forward();
  try {
    const taken: number[] = [];
    for (;;) {
      const { portInUse, ...run } = await runRequests(sandbox, spec, {
        ...scorerOptions,
        signal: controller.signal,
      });
      if (!portInUse) return run;
      // The server could not bind its port: another process took it between the lease and the
      // server's bind (or the program says so). Another port, a few times, before anyone is blamed.
      taken.push(portInUse.port);
      if (taken.length < portAttempts) continue;
      const ports = taken.join(', ');
      if (portInUse.onHost)
        throw new ClassifiedError(
          'sandbox',
          `every port leased for the server was taken by another process of the host before the server could bind it (${portAttempts} attempts: ports ${ports}); the program was not judged`,
        );
      const note = ` (port in use on ${portAttempts} attempts: ${ports}; no other process of the host held the last one)`;
      const failed = run.checks.findIndex((check) => !check.passed);
      run.checks[failed] = { ...run.checks[failed]!, reason: `${run.checks[failed]!.reason}${note}` };
      return run;
    }
  } finally {
    scorerOptions.signal.removeEventListener('abort', forward);
    controller.abort('case ended');
  }
}

async function runRequests(
  sandbox: Sandbox,
  spec: HttpCase,
  options: HttpRunOptions,
): Promise<HttpCaseRun & { portInUse?: { port: number; onHost: boolean } }> {
  await prepareCaseWorkspace(sandbox, spec, options.baseline);
  const checks: Check[] = [];
  const exchanges: HttpExchange[] = [];
  const saved = new Map<string, unknown>();
  const output = { stdout: '', stderr: '' };
  let server: RunningServer | undefined;
  let lease: { port: number; release(): void } | undefined;
  // The port of the server last started, and whether the host's loopback is where it listens.
  let current: { port: number; shared: boolean } | undefined;
  let portInUse: { port: number; onHost: boolean } | undefined;
  const start = async (): Promise<string | undefined> => {
    lease = await leasePort();
    try {
      server = await startServer(sandbox, spec.server, { ...options, port: lease.port });
      current = { port: lease.port, shared: sharesHostPort(server.baseUrl, lease.port) };
      return undefined;
    } catch (error) {
      if (!(error instanceof ServerNotReady)) throw error;
      portInUse = error.portInUse;
      return error.message;
    }
  };
  const stop = async () => {
    if (server) {
      await stopServer(server);
      const { stdout, stderr } = server.process.output();
      output.stdout += stdout;
      output.stderr += stderr;
      server = undefined;
    }
    lease?.release();
    lease = undefined;
  };
  try {
    // JSON Schema validation (ajv) is imported when an HTTP case first runs, not when the scorer loads.
    const { checkResponse } = await import('./check-response.js');
    const notReady = await start();
    if (notReady)
      return {
        checks: [failure('server', notReady)],
        exchanges,
        server: output,
        ...(portInUse ? { portInUse } : {}),
      };
    for (const [index, step] of spec.requests.entries()) {
      options.signal.throwIfAborted();
      if ('restart' in step) {
        exchanges.push({ index, restart: true });
        await stop();
        const again = await start();
        if (again) {
          checks.push(failure(`restart (request ${index + 1})`, again));
          break;
        }
        continue;
      }
      const target = `${step.method} ${step.path} (request ${index + 1})`;
      let response: HttpResponseData;
      try {
        response = await send(server!.baseUrl, step, saved, options);
      } catch (error) {
        options.signal.throwIfAborted();
        const timedOut = (error as Error).name === 'TimeoutError';
        const reason = timedOut
          ? `no response within ${options.timeoutMs} ms`
          : `request failed: ${(error as Error).message}`;
        exchanges.push({ index, method: step.method, path: step.path, error: reason });
        checks.push(failure(target, reason, timedOut ? 'timed out' : 'request failed'));
        break;
      }
      exchanges.push({ index, method: step.method, path: step.path, response });
      const found = checkResponse(step.expect, response, new Date().toISOString()).map((check) => ({
        ...check,
        target: `${target} ${check.target}`,
      }));
      checks.push(...found);
      if (found.some((check) => !check.passed)) break;
      for (const [name, dotPath] of Object.entries(step.save ?? {})) {
        let value: unknown;
        try {
          value = at(JSON.parse(response.body), dotPath);
        } catch {
          value = undefined;
        }
        if (value === undefined) {
          checks.push(
            failure(`${target} save ${name}`, `the body has no value at ${dotPath}`, 'value to save missing'),
          );
          break;
        }
        saved.set(name, value);
      }
      if (checks.some((check) => !check.passed)) break;
    }
  } finally {
    await stop();
  }
  // Another process listening on the port answers for a server that could not bind it: a case
  // that failed while its server said so is a port taken, not the program's answer.
  if (
    !portInUse &&
    current &&
    checks.some((check) => !check.passed) &&
    saysPortInUse(`${output.stderr}\n${output.stdout}`)
  )
    portInUse = { port: current.port, onHost: current.shared && (await heldOnHost(current.port)) };
  return { checks, exchanges, server: output, ...(portInUse ? { portInUse } : {}) };
}

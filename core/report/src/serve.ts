import { type Stats, unwatchFile, watchFile } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join, sep } from 'node:path';
import { renderReport } from './build-report.js';
import { indexPage } from './index-page.js';
import { type LoadedRun, loadRun } from './load-run.js';
import { buildRunModel, type RunModel } from './model.js';
import { type RunListing, runListing } from './run-listing.js';
import { trialDetail } from './trial-detail.js';
import { detailLimit } from './truncate.js';

export interface ViewerOptions {
  /** A run directory, or a folder whose subfolders are runs. */
  path: string;
  /** 0 (the default) takes a free port. */
  port?: number;
  /** How often events.jsonl is checked for new events (ms). */
  pollMs?: number;
}

export interface Viewer {
  url: string;
  close(): Promise<void>;
}

const isDir = (path: string) =>
  stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );

/** A run directory holds trials/ or events.jsonl. */
async function isRun(dir: string): Promise<boolean> {
  return (
    (await isDir(join(dir, 'trials'))) ||
    (await stat(join(dir, 'events.jsonl')).then(
      () => true,
      () => false,
    ))
  );
}

/** `realpath` of a path if it exists and lies inside `root` (itself a realpath), else undefined. */
async function inside(root: string, path: string): Promise<string | undefined> {
  const real = await realpath(path).catch(() => undefined);
  return real !== undefined && (real === root || real.startsWith(root + sep)) ? real : undefined;
}

/** A URL path segment, decoded; undefined when it could name anything but a plain file or folder. */
function segment(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (decoded === '' || decoded === '.' || decoded === '..') return undefined;
  if (/[/\\\0]/.test(decoded)) return undefined;
  return decoded;
}

/** A run's page data for the live page: the run's model, without any step content. */
async function liveData(run: LoadedRun): Promise<{ runs: RunModel[]; comparison: null }> {
  return { runs: [buildRunModel(run, 0)], comparison: null };
}

class RunWatch {
  readonly clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private readonly listener = (current: Stats, previous: Stats) => {
    if (current.size !== previous.size || current.mtimeMs !== previous.mtimeMs) this.schedule();
  };

  constructor(
    private readonly dir: string,
    private readonly pollMs: number,
  ) {
    watchFile(join(dir, 'events.jsonl'), { interval: pollMs }, this.listener);
  }

  private schedule(): void {
    // Events come in bursts (a step's end, its trial record, the next step's start): one update.
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.push();
    }, this.pollMs);
  }

  private async push(): Promise<void> {
    let message: string;
    try {
      message = `event: run\ndata: ${JSON.stringify(await liveData(await loadRun(this.dir)))}\n\n`;
    } catch {
      // A file caught mid-rename: the next event brings the next update.
      return;
    }
    for (const client of this.clients) client.write(message);
  }

  close(): void {
    unwatchFile(join(this.dir, 'events.jsonl'), this.listener);
    clearTimeout(this.timer);
    for (const client of this.clients) client.end();
    this.clients.clear();
  }
}

/**
 * `longhaul view`: a read-only web server on 127.0.0.1 with the report page of every run in a
 * folder, each updated live from its events.jsonl (server-sent events). It answers GET and HEAD
 * only, and serves no file outside the runs it shows (symbolic links included).
 */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const root = await realpath(options.path).catch(() => {
    throw new Error(`${options.path}: no such directory`);
  });
  if (!(await isDir(root))) throw new Error(`${options.path}: not a directory`);
  const single = await isRun(root);
  const pollMs = options.pollMs ?? 500;
  const watches = new Map<string, RunWatch>();

  /** The runs shown, by name: the run given, or the run folders inside the folder given. */
  async function runs(): Promise<Map<string, string>> {
    if (single) return new Map([[basename(root), root]]);
    const found = new Map<string, string>();
    for (const entry of (await readdir(root, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? 1 : -1,
    )) {
      const dir = join(root, entry.name);
      if (entry.isDirectory() && (await isRun(dir))) found.set(entry.name, dir);
    }
    return found;
  }

  async function runDir(raw: string): Promise<string | undefined> {
    const name = segment(raw);
    if (name === undefined) return undefined;
    const dir = (await runs()).get(name);
    return dir === undefined ? undefined : inside(root, dir);
  }

  function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
    res.writeHead(status, {
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  }
  const notFound = (res: ServerResponse) => send(res, 404, 'text/plain; charset=utf-8', 'not found\n');

  async function index(res: ServerResponse): Promise<void> {
    const listings: RunListing[] = [];
    for (const dir of (await runs()).values()) {
      // A run removed or half-written while the page is made is left out, not a failed page.
      const run = await loadRun(dir).catch(() => undefined);
      if (run) listings.push(await runListing(run));
    }
    send(res, 200, 'text/html; charset=utf-8', await indexPage(root, listings));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('read-only: GET and HEAD only\n');
      return;
    }
    // Only pages asked for by this address: another site's page cannot reach the viewer by a
    // name that resolves to 127.0.0.1 (DNS rebinding).
    const { port } = server.address() as AddressInfo;
    if (req.headers.host !== `127.0.0.1:${port}` && req.headers.host !== `localhost:${port}`) {
      send(res, 403, 'text/plain; charset=utf-8', 'forbidden host\n');
      return;
    }
    // The raw path, split before decoding, so an encoded slash or dot never joins segments.
    const path = (req.url ?? '/').split('?')[0]!;
    const parts = path.split('/').slice(1);
    if (path === '/') return index(res);
    // Browsers ask for it on every page; there is none.
    if (path === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    if (parts[0] !== 'runs' || parts.length < 2) return notFound(res);
    const dir = await runDir(parts[1]!);
    if (dir === undefined) return notFound(res);
    const rest = parts.slice(2);
    if (rest.length === 0) {
      res.writeHead(301, { location: `${parts[1]}/` });
      res.end();
      return;
    }
    if (rest.length === 1 && rest[0] === '') {
      const html = await renderReport([await loadRun(dir)], {
        live: { base: '' },
        title: `longhaul: ${basename(dir)}`,
      });
      return send(res, 200, 'text/html; charset=utf-8', html);
    }
    if (rest.length === 1 && rest[0] === 'events') return events(dir, req, res);
    if (rest.length === 2 && rest[0] === 'trials') {
      const id = segment(rest[1]!);
      const run = await loadRun(dir);
      const index = run.trials.findIndex((trial) => trial.record.id === id);
      if (id === undefined || index < 0) return notFound(res);
      const detail = await trialDetail(run.trials[index]!, detailLimit(buildRunModel(run, 0)));
      return send(res, 200, 'application/json; charset=utf-8', JSON.stringify(detail));
    }
    if (rest[0] === 'files' && rest.length > 1) {
      const names = rest.slice(1).map(segment);
      if (names.some((name) => name === undefined)) return notFound(res);
      const file = await inside(dir, join(dir, ...(names as string[])));
      if (file === undefined || !(await stat(file)).isFile()) return notFound(res);
      // Files the agent wrote: shown as text, never run as a page.
      res.setHeader('content-security-policy', 'sandbox');
      return send(res, 200, 'text/plain; charset=utf-8', await readFile(file));
    }
    return notFound(res);
  }

  function events(dir: string, req: IncomingMessage, res: ServerResponse): void {
    let watch = watches.get(dir);
    if (!watch) {
      watch = new RunWatch(dir, pollMs);
      watches.set(dir, watch);
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    res.write(': live\n\n');
    const clients = watch.clients;
    clients.add(res);
    req.on('close', () => clients.delete(res));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.end();
      else send(res, 500, 'text/plain; charset=utf-8', `${(error as Error).message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      for (const watch of watches.values()) watch.close();
      watches.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

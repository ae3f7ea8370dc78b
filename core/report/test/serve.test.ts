import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM helper shared with the benchmark, without types
import { writeSyntheticRun } from '../../../bench/report/synthetic-run.mjs';
import { startViewer, type Viewer } from '../src/index.js';

let dir: string;
let viewer: Viewer;
const run = 'demo-20261126-120000';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'longhaul-viewer-'));
  await writeFileSecret();
  await writeSyntheticRun(join(dir, 'runs', run), { trials: 2, steps: 2 });
  await writeFile(join(dir, 'runs', run, 'summary.json'), '{"conditions": []}');
  // A link an agent could leave in its workspace, pointing out of the run.
  await symlink(join(dir, 'secret.txt'), join(dir, 'runs', run, 'trials', 'link.txt'));
  await mkdir(join(dir, 'runs', 'not-a-run'));
  viewer = await startViewer({ path: join(dir, 'runs') });
}, 60_000);

afterAll(async () => {
  await viewer?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function writeFileSecret() {
  await writeFile(join(dir, 'secret.txt'), 'the secret\n');
}

/** A request with the path sent exactly as written (no URL normalisation by the client). */
function raw(
  path: string,
  init: { method?: string; host?: string } = {},
): Promise<{ status: number; body: string; type: string }> {
  const url = new URL(viewer.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: url.port,
        path,
        method: init.method ?? 'GET',
        headers: { host: init.host ?? url.host },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('longhaul view: the server', () => {
  it('listens on 127.0.0.1 and lists the runs of the folder, and only runs', async () => {
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await raw('/');
    expect(index.status).toBe(200);
    // The page's script draws the rows (and their links) from this data block.
    const listed = JSON.parse(
      /<script type="application\/json" id="runs-data">(.*?)<\/script>/.exec(index.body)![1]!,
    );
    expect(listed.map((found: { name: string }) => found.name)).toEqual([run]);
    expect(index.body).not.toContain('not-a-run');
  });

  it('serves a run page, a trial’s steps and the run’s files', async () => {
    const page = await raw(`/runs/${run}/`);
    expect(page.status).toBe(200);
    expect(page.type).toContain('text/html');
    expect(page.body).toContain('"live":{"base":""}');
    const trial = await raw(`/runs/${run}/trials/task0.oracle.just-solve.none.r1`);
    expect(trial.status).toBe(200);
    expect(JSON.parse(trial.body)[0].diff).toContain('+line 0 of step 1');
    const file = await raw(
      `/runs/${run}/files/trials/task0.oracle.just-solve.none.r1/steps/01-step1/diff.patch`,
    );
    expect(file.status).toBe(200);
    expect(file.type).toContain('text/plain');
    expect(file.body).toContain('+line 0 of step 1');
  });

  it('is read-only: every method but GET and HEAD is refused', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      expect((await raw(`/runs/${run}/files/summary.json`, { method })).status, method).toBe(405);
    }
    expect((await raw(`/runs/${run}/files/summary.json`, { method: 'HEAD' })).status).toBe(200);
  });

  it('reads nothing outside the runs: .., encoded .., encoded slashes, symbolic links', async () => {
    const attempts = [
      `/runs/${run}/files/../../secret.txt`,
      `/runs/${run}/files/../../../secret.txt`,
      `/runs/${run}/files/%2e%2e/%2e%2e/secret.txt`,
      `/runs/${run}/files/%2E%2E%2F%2E%2E%2Fsecret.txt`,
      `/runs/${run}/files/..%2f..%2fsecret.txt`,
      `/runs/${run}/files/..%5c..%5csecret.txt`,
      `/runs/${run}/files/%252e%252e/%252e%252e/secret.txt`,
      `/runs/${run}/files/trials/link.txt`,
      `/runs/${run}/files/${encodeURIComponent(join(dir, 'secret.txt'))}`,
      `/runs/${run}/files//${join(dir, 'secret.txt')}`,
      '/runs/..%2fsecret.txt',
      '/runs/%2e%2e/files/secret.txt',
      '/runs/../secret.txt',
      '/runs/not-a-run/',
      `/runs/${run}/trials/..%2f..%2f..%2fsecret.txt`,
      `/runs/${run}/files/summary.json%00.txt`,
      '/runs/%/',
    ];
    for (const path of attempts) {
      const answer = await raw(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('the secret');
    }
  });

  it('answers only requests addressed to 127.0.0.1 or localhost (no DNS rebinding)', async () => {
    expect((await raw('/', { host: 'evil.example:80' })).status).toBe(403);
    const { port } = new URL(viewer.url);
    expect((await raw('/', { host: `localhost:${port}` })).status).toBe(200);
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassifiedError } from '@longhaul/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scoreStep, taskWith } from './harness.js';

// Ports the next leases hand out before any free one: the test binds them first, as another
// process of the host does when it takes a leased port before the server binds it.
const forced = vi.hoisted(() => [] as number[]);
vi.mock('../src/http/free-port.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/http/free-port.js')>();
  return {
    ...real,
    leasePort: async () => {
      const port = forced.shift();
      return port === undefined ? real.leasePort() : { port, release: () => undefined };
    },
  };
});

// A correct server for the one case below, which binds PORT as the benchmark's servers do (and
// dies with Python's `OSError: [Errno 98] Address already in use` when it is taken).
const server = `import json, os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        data = json.dumps({"n": 1}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *args):
        pass
ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
`;

// A wrong program that only claims its port is taken.
const liar = `import sys
print("OSError: [Errno 98] Address already in use", file=sys.stderr)
sys.exit(1)
`;

/**
 * Another process of the host holding a port of its own, bound and not listening (as a client's
 * socket holds an ephemeral port): a server cannot bind it, and nothing answers on it.
 */
const occupants: ChildProcess[] = [];
async function occupyPort(): Promise<number> {
  const occupant = spawn('/usr/bin/python3', [
    '-c',
    'import socket, sys\ns = socket.socket()\ns.bind(("127.0.0.1", 0))\nprint(s.getsockname()[1], flush=True)\nsys.stdin.read()',
  ]);
  occupants.push(occupant);
  const [line] = (await once(occupant.stdout!, 'data')) as [Buffer];
  return Number(line.toString().trim());
}

afterEach(() => {
  forced.length = 0;
  for (const occupant of occupants.splice(0)) occupant.kill();
});

async function score(program: string) {
  const task = await taskWith({
    'task.yaml':
      'id: t\ntitle: t\nentrypoint: python3 server.py\nlanguage: python\ntimeouts: { caseMs: 60000 }\n',
    'steps/01-one/cases/core/get.yaml':
      'requests:\n  - { path: /n, expect: { status: 200, json: { n: 1 } } }',
  });
  const workspace = await mkdtemp(join(tmpdir(), 'longhaul-http-port-'));
  await writeFile(join(workspace, 'server.py'), program);
  const { scores, list } = await scoreStep(task, 0, workspace);
  const cases = (list[0]!.detail as { cases: { passed: boolean; reason?: string }[] }).cases;
  return { scores, reason: cases[0]!.reason };
}

describe('a port taken between the lease and the server', () => {
  it('is leased again, so the correct server passes', async () => {
    forced.push(await occupyPort(), await occupyPort());
    const { scores, reason } = await score(server);
    expect(reason).toBeUndefined();
    expect(scores).toMatchObject({ strict: 1, 'core.passed': 1 });
    expect(forced).toEqual([]);
  });

  it('taken on every attempt is a fault of the environment, not a zero for the program', async () => {
    forced.push(await occupyPort(), await occupyPort(), await occupyPort(), await occupyPort());
    const scored = score(server);
    await expect(scored).rejects.toBeInstanceOf(ClassifiedError);
    await expect(scored).rejects.toMatchObject({
      errorClass: 'sandbox',
      message: expect.stringMatching(
        /core\/get: every port leased for the server was taken by another process of the host .*4 attempts/,
      ),
    });
  });

  it('is no excuse for a program that only claims its port is in use: it scores 0', async () => {
    const { scores, reason } = await score(liar);
    expect(scores).toMatchObject({ strict: 0, 'core.passed': 0 });
    expect(reason).toMatch(
      /server exited with code 1 before it was ready: OSError: \[Errno 98\] Address already in use \(port in use on 4 attempts: .*no other process of the host held the last one\)/,
    );
  });
});

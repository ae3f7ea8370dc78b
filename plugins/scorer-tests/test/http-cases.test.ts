import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreStep, taskWith } from './harness.js';

// A tiny server whose behaviour each test picks through its workspace: it answers /echo with what
// it was sent, /clock with the time, /items with an unordered list, and exits at once on /crash.
const server = `import json, os, sys, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
if os.environ.get("MODE") == "exit":
    print("cannot bind: port taken", file=sys.stderr)
    sys.exit(3)
class H(BaseHTTPRequestHandler):
    def reply(self, status, payload, headers=()):
        data = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        if self.path == "/health":
            return self.reply(200 if os.environ.get("MODE") != "never-ready" else 503, {})
        if self.path == "/clock":
            now = datetime.datetime.now(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
            return self.reply(200, {"now": now, "pi": 3.14159})
        if self.path == "/items":
            return self.reply(200, {"items": [{"n": 3}, {"n": 1}, {"n": 2}], "extra": True})
        self.reply(404, {"error": "no"})
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.reply(201, {"id": 7, "got": body, "auth": self.headers.get("Authorization")}, [("ETag", '"1"')])
    def log_message(self, *args):
        pass
ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
`;

async function score(cases: Record<string, string>) {
  const files: Record<string, string> = {
    'task.yaml':
      'id: t\ntitle: t\nentrypoint: python3 server.py\nlanguage: python\ntimeouts: { caseMs: 60000 }\n',
  };
  for (const [name, text] of Object.entries(cases)) files[`steps/01-one/cases/core/${name}.yaml`] = text;
  const task = await taskWith(files);
  const workspace = await mkdtemp(join(tmpdir(), 'longhaul-http-ws-'));
  await writeFile(join(workspace, 'server.py'), server);
  const { scores, list } = await scoreStep(task, 0, workspace);
  const cases_ = (list[0]!.detail as { cases: { id: string; passed: boolean; reason?: string }[] }).cases;
  return {
    scores,
    reasons: Object.fromEntries(cases_.map((item) => [item.id.split('/').at(-1)!, item.reason ?? 'passed'])),
  };
}

describe('HTTP cases', () => {
  it('checks status, headers, exact / partial / schema bodies, saved values and normalizers', async () => {
    const { scores, reasons } = await score({
      post: `requests:
  - method: POST
    path: /echo
    headers: { Authorization: Bearer x }
    json: { a: [1, 2] }
    expect: { status: 201, headers: { ETag: '^"1"$' }, json: { auth: Bearer x, got: { a: [1, 2] }, id: 7 } }
    save: { id: id }
  - { method: POST, path: /echo, json: { ref: "{{id}}", label: "n{{id}}" }, expect: { status: 201, partial: { got: { ref: 7, label: n7 } } } }`,
      unordered: `requests:
  - { path: /items, expect: { status: 200, partial: { items: [{ n: 1 }, { n: 2 }, { n: 3 }] }, normalize: [sortLists] } }
  - { path: /items, expect: { status: 200, schema: { type: object, required: [items], properties: { items: { type: array, minItems: 3 } } } } }`,
      clock: `requests:
  - { path: /clock, expect: { status: 200, json: { now: "{{now}}", pi: 3.14 }, tolerance: 0.01, timestampToleranceMs: 5000 } }`,
      ready: `server: { ready: { path: /health } }
requests:
  - { path: /nowhere, expect: { status: 404 } }`,
    });
    expect(reasons).toEqual({ post: 'passed', unordered: 'passed', clock: 'passed', ready: 'passed' });
    expect(scores).toMatchObject({ strict: 1, 'core.total': 4 });
  });

  it('fails precisely: wrong status, extra key, list order, schema, header, stale time', async () => {
    const { scores, reasons } = await score({
      status: 'requests:\n  - { path: /items, expect: { status: 201 } }',
      extra:
        'requests:\n  - { path: /items, expect: { status: 200, json: { items: [{ n: 3 }, { n: 1 }, { n: 2 }] } } }',
      order:
        'requests:\n  - { path: /items, expect: { status: 200, partial: { items: [{ n: 1 }, { n: 2 }, { n: 3 }] } } }',
      schema:
        'requests:\n  - { path: /items, expect: { status: 200, schema: { type: object, properties: { extra: { type: string } } } } }',
      header: `requests:\n  - { path: /items, expect: { status: 200, headers: { ETag: "." } } }`,
      stale:
        'requests:\n  - { path: /clock, expect: { status: 200, partial: { now: "2001-01-01T00:00:00Z" }, timestampToleranceMs: 5000 } }',
    });
    expect(scores).toMatchObject({ strict: 0, 'core.passed': 0, 'core.total': 6 });
    expect(reasons.status).toMatch(/GET \/items \(request 1\) status: expected 201, got 200/);
    expect(reasons.extra).toMatch(/body: \$: unexpected key "extra"/);
    expect(reasons.order).toMatch(/body: \$\.items\[0\]\.n: expected 1, got 3/);
    expect(reasons.schema).toMatch(/does not match the schema: \/extra must be string/);
    expect(reasons.header).toMatch(/header ETag: missing/);
    expect(reasons.stale).toMatch(/\$\.now: expected "2001-01-01T00:00:00Z"/);
  });

  it('reports a server that exits or never gets ready, without hanging', async () => {
    const { reasons } = await score({
      exits: 'server: { env: { MODE: exit } }\nrequests:\n  - { path: /items, expect: { status: 200 } }',
      never:
        'server: { env: { MODE: never-ready }, ready: { path: /health, timeoutMs: 800 } }\nrequests:\n  - { path: /items, expect: { status: 200 } }',
    });
    expect(reasons.exits).toMatch(
      /server: server exited with code 3 before it was ready: cannot bind: port taken/,
    );
    expect(reasons.never).toMatch(/server: server did not answer \/health within 800 ms/);
  });
});

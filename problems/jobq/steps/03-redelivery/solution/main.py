"""jobq: a job queue over HTTP with durable state and redelivery (standard library only)."""

import json
import os
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from errors import BadRequest, HttpError, MethodNotAllowed, NotFound
from store import Store

STORE = Store(os.environ.get("JOBQ_DATA") or None)
JOB_PATH = re.compile(r"^/jobs/([^/]+)$")
ACTION_PATH = re.compile(r"^/jobs/([^/]+)/(complete|fail|release)$")


def job_id_of(text):
    if not text.isdigit():
        raise NotFound(f"no job with id {text}")
    return int(text)


def require(method, allowed, path):
    if method not in allowed:
        raise MethodNotAllowed(f"{method} is not supported on {path}")


def route(method, path, query, body, now):
    if path == "/jobs":
        require(method, ("GET", "POST"), path)
        if method == "GET":
            return 200, STORE.query(query, now)
        return 201, STORE.enqueue(body(required=True), now)
    if path == "/jobs/claim":
        require(method, ("POST",), path)
        job = STORE.claim(body(required=False), now)
        return (200, job) if job else (204, None)
    match = ACTION_PATH.match(path)
    if match:
        require(method, ("POST",), path)
        fields = body(required=False)
        return 200, STORE.finish(job_id_of(match.group(1)), match.group(2), fields, now)
    match = JOB_PATH.match(path)
    if match:
        require(method, ("GET",), path)
        return 200, STORE.get(job_id_of(match.group(1)), now)
    raise NotFound(f"no such path: {path}")


def clock(headers):
    given = headers.get("X-Clock")
    if given is None:
        return int(time.time())
    if not given.strip().isdigit():
        raise BadRequest("X-Clock must be a whole number of seconds, 0 or more")
    return int(given)


class Handler(BaseHTTPRequestHandler):
    def handle_any(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def body(required):
            if not raw.strip():
                if required:
                    raise BadRequest("a JSON object body is required")
                return {}
            try:
                value = json.loads(raw)
            except ValueError:
                raise BadRequest("the body is not valid JSON") from None
            if not isinstance(value, dict):
                raise BadRequest("the body must be a JSON object")
            return value

        try:
            url = urlsplit(self.path)
            status, payload = route(self.command, url.path, url.query, body, clock(self.headers))
        except HttpError as error:
            status, payload = error.status, {"error": str(error)}
        self.send_response(status)
        if payload is None:
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = json.dumps(payload).encode()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("0.0.0.0", int(os.environ.get("PORT", "8080"))), Handler)
    server.serve_forever()

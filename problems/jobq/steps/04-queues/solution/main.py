"""jobq: a job queue over HTTP with named queues, durable state and redelivery (standard library only)."""

import json
import os
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from errors import BadRequest, HttpError, MethodNotAllowed, NotFound
from rules import DEFAULT_QUEUE, check_key, check_queue_name
from store import Store

STORE = Store(os.environ.get("JOBQ_DATA") or None)
JOB_PATH = re.compile(r"^/jobs/([^/]+)$")
ACTION_PATH = re.compile(r"^/jobs/([^/]+)/(complete|fail|release)$")
QUEUE_PATH = re.compile(r"^/queues/([^/]+)(/jobs|/claim)?$")


def job_id_of(text):
    if not text.isdigit():
        raise NotFound(f"no job with id {text}")
    return int(text)


def require(method, allowed, path):
    if method not in allowed:
        raise MethodNotAllowed(f"{method} is not supported on {path}")


def queue_route(method, path, queue, action, query, request):
    if action == "/jobs":
        require(method, ("GET", "POST"), path)
        if method == "GET":
            return 200, STORE.query(queue, query, request.now)
        key = check_key(request.headers.get("Idempotency-Key"))
        job, created = STORE.enqueue(queue, request.body(required=True), key, request.now)
        return (201 if created else 200), job
    if action == "/claim":
        require(method, ("POST",), path)
        job = STORE.claim(queue, request.body(required=False), request.now)
        return (200, job) if job else (204, None)
    require(method, ("GET",), path)
    return 200, STORE.stats(queue, request.now)


def route(method, path, query, request):
    body, now = request.body, request.now
    if path in ("/jobs", "/jobs/claim"):
        return queue_route(method, path, DEFAULT_QUEUE, path[len("/jobs") :] or "/jobs", query, request)
    if path == "/queues":
        require(method, ("GET",), path)
        return 200, STORE.all_stats(now)
    match = QUEUE_PATH.match(path)
    if match:
        return queue_route(method, path, check_queue_name(match.group(1)), match.group(2), query, request)
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


class Request:
    def __init__(self, headers, body, now):
        self.headers, self.body, self.now = headers, body, now


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
            request = Request(self.headers, body, clock(self.headers))
            status, payload = route(self.command, url.path, url.query, request)
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

"""jobq: a job queue over HTTP with priorities, delays and list queries (standard library only)."""

import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit


class HttpError(Exception):
    status = 500


class BadRequest(HttpError):
    status = 400


class NotFound(HttpError):
    status = 404


class MethodNotAllowed(HttpError):
    status = 405


class Conflict(HttpError):
    status = 409


STATES = ("queued", "claimed", "done", "failed")


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def whole(fields, name, default=0):
    value = fields.get(name, default)
    if not is_int(value) or value < 0:
        raise BadRequest(f"{name} must be a whole number of 0 or more")
    return value


def is_ready(job, now):
    return job["state"] == "queued" and job["run_at"] <= now


def claim_order(job):
    return (-job["priority"], job["run_at"], job["id"])


ORDERS = {
    "id": lambda job: job["id"],
    "priority": claim_order,
    "run_at": lambda job: (job["run_at"], job["id"]),
}


def parse_int(name, text):
    if not re.fullmatch(r"-?\d+", text):
        raise BadRequest(f"{name} must be an integer")
    return int(text)


def parse_query(query):
    """A job list query as (predicates, order key, offset, limit)."""
    tests, order, offset, limit = [], ORDERS["id"], 0, None
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name == "state":
            states = value.split(",")
            unknown = [state for state in states if state not in STATES]
            if unknown:
                raise BadRequest(f"unknown state {unknown[0]!r}")
            tests.append(lambda job, now, states=states: job["state"] in states)
        elif name == "min_priority":
            low = parse_int(name, value)
            tests.append(lambda job, now, low=low: job["priority"] >= low)
        elif name == "max_priority":
            high = parse_int(name, value)
            tests.append(lambda job, now, high=high: job["priority"] <= high)
        elif name == "ready":
            if value not in ("true", "false"):
                raise BadRequest("ready must be true or false")
            wanted = value == "true"
            tests.append(lambda job, now, wanted=wanted: is_ready(job, now) == wanted)
        elif name == "order":
            if value not in ORDERS:
                raise BadRequest(f"order must be one of {', '.join(ORDERS)}")
            order = ORDERS[value]
        elif name == "limit":
            limit = parse_int(name, value)
            if not 1 <= limit <= 100:
                raise BadRequest("limit must be between 1 and 100")
        elif name == "offset":
            offset = parse_int(name, value)
            if offset < 0:
                raise BadRequest("offset must be 0 or more")
        else:
            raise BadRequest(f"unknown query parameter {name!r}")
    return tests, order, offset, limit


class Queue:
    def __init__(self):
        self.jobs = {}
        self.next_id = 1
        self.lock = threading.Lock()

    def enqueue(self, fields, now):
        priority = fields.get("priority", 0)
        if not is_int(priority):
            raise BadRequest("priority must be an integer")
        delay = whole(fields, "delay")
        with self.lock:
            job = {
                "id": self.next_id,
                "payload": fields["payload"],
                "state": "queued",
                "attempts": 0,
                "result": None,
                "error": None,
                "priority": priority,
                "run_at": now + delay,
            }
            self.jobs[job["id"]] = job
            self.next_id += 1
            return job

    def get(self, job_id):
        job = self.jobs.get(job_id)
        if job is None:
            raise NotFound(f"no job with id {job_id}")
        return job

    def query(self, query, now):
        tests, order, offset, limit = parse_query(query)
        found = sorted((job for job in self.jobs.values() if all(test(job, now) for test in tests)), key=order)
        page = found[offset:] if limit is None else found[offset : offset + limit]
        return {"items": page, "total": len(found)}

    def claim(self, now):
        with self.lock:
            ready = [job for job in self.jobs.values() if is_ready(job, now)]
            if not ready:
                return None
            job = min(ready, key=claim_order)
            job["state"] = "claimed"
            job["attempts"] += 1
            return job

    def finish(self, job_id, action, body, now):
        with self.lock:
            job = self.get(job_id)
            if action == "fail":
                message = body.get("error")
                if not isinstance(message, str) or not message:
                    raise BadRequest("error must be a non-empty string")
            delay = whole(body, "delay") if action == "release" else 0
            if job["state"] != "claimed":
                raise Conflict(f"job {job_id} is {job['state']}, not claimed")
            if action == "complete":
                job["state"], job["result"] = "done", body.get("result")
            elif action == "fail":
                job["state"], job["error"] = "failed", message
            else:
                job["state"], job["run_at"] = "queued", now + delay
            return job


QUEUE = Queue()
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
            return 200, QUEUE.query(query, now)
        fields = body(required=True)
        if "payload" not in fields:
            raise BadRequest("payload is required")
        return 201, QUEUE.enqueue(fields, now)
    if path == "/jobs/claim":
        require(method, ("POST",), path)
        job = QUEUE.claim(now)
        return (200, job) if job else (204, None)
    match = ACTION_PATH.match(path)
    if match:
        require(method, ("POST",), path)
        fields = body(required=False)
        return 200, QUEUE.finish(job_id_of(match.group(1)), match.group(2), fields, now)
    match = JOB_PATH.match(path)
    if match:
        require(method, ("GET",), path)
        return 200, QUEUE.get(job_id_of(match.group(1)))
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

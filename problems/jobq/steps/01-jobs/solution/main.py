"""jobq: a job queue over HTTP (standard library only)."""

import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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


class Queue:
    def __init__(self):
        self.jobs = {}
        self.next_id = 1
        self.lock = threading.Lock()

    def enqueue(self, payload):
        with self.lock:
            job = {
                "id": self.next_id,
                "payload": payload,
                "state": "queued",
                "attempts": 0,
                "result": None,
                "error": None,
            }
            self.jobs[job["id"]] = job
            self.next_id += 1
            return job

    def get(self, job_id):
        job = self.jobs.get(job_id)
        if job is None:
            raise NotFound(f"no job with id {job_id}")
        return job

    def all(self):
        return [self.jobs[key] for key in sorted(self.jobs)]

    def claim(self):
        with self.lock:
            for job in self.all():
                if job["state"] == "queued":
                    job["state"] = "claimed"
                    job["attempts"] += 1
                    return job
            return None

    def finish(self, job_id, action, body):
        with self.lock:
            job = self.get(job_id)
            if action == "fail":
                message = body.get("error")
                if not isinstance(message, str) or not message:
                    raise BadRequest("error must be a non-empty string")
            if job["state"] != "claimed":
                raise Conflict(f"job {job_id} is {job['state']}, not claimed")
            if action == "complete":
                job["state"], job["result"] = "done", body.get("result")
            elif action == "fail":
                job["state"], job["error"] = "failed", message
            else:
                job["state"] = "queued"
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


def route(method, path, body):
    if path == "/jobs":
        require(method, ("GET", "POST"), path)
        if method == "GET":
            items = QUEUE.all()
            return 200, {"items": items, "total": len(items)}
        fields = body(required=True)
        if "payload" not in fields:
            raise BadRequest("payload is required")
        return 201, QUEUE.enqueue(fields["payload"])
    if path == "/jobs/claim":
        require(method, ("POST",), path)
        job = QUEUE.claim()
        return (200, job) if job else (204, None)
    match = ACTION_PATH.match(path)
    if match:
        require(method, ("POST",), path)
        fields = body(required=False)
        return 200, QUEUE.finish(job_id_of(match.group(1)), match.group(2), fields)
    match = JOB_PATH.match(path)
    if match:
        require(method, ("GET",), path)
        return 200, QUEUE.get(job_id_of(match.group(1)))
    raise NotFound(f"no such path: {path}")


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
            status, payload = route(self.command, self.path.split("?")[0], body)
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

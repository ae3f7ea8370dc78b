"""The jobs, kept in memory and, when a data file is named, written to it after every change."""

import json
import os
import threading

from errors import BadRequest, Conflict, NotFound
from query import run_query
from rules import DEFAULT_VISIBILITY, claim_order, is_int, is_ready, state_at, view, whole


class Store:
    def __init__(self, path=None):
        self.path = path
        self.jobs = {}
        self.next_id = 1
        self.lock = threading.Lock()
        if path and os.path.exists(path):
            with open(path, encoding="utf-8") as file:
                saved = json.load(file)
            self.next_id = saved["next_id"]
            self.jobs = {job["id"]: job for job in saved["jobs"]}

    def save(self):
        if not self.path:
            return
        temporary = f"{self.path}.tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump({"next_id": self.next_id, "jobs": list(self.jobs.values())}, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)

    def enqueue(self, fields, now):
        if "payload" not in fields:
            raise BadRequest("payload is required")
        priority = fields.get("priority", 0)
        if not is_int(priority):
            raise BadRequest("priority must be an integer")
        delay = whole(fields, "delay")
        max_attempts = None if fields.get("max_attempts") is None else whole(fields, "max_attempts", least=1)
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
                "max_attempts": max_attempts,
                "claimed_until": None,
            }
            self.jobs[job["id"]] = job
            self.next_id += 1
            self.save()
            return view(job, now)

    def find(self, job_id):
        job = self.jobs.get(job_id)
        if job is None:
            raise NotFound(f"no job with id {job_id}")
        return job

    def get(self, job_id, now):
        return view(self.find(job_id), now)

    def query(self, query, now):
        return run_query([view(job, now) for job in self.jobs.values()], query, now)

    def claim(self, body, now):
        visibility = whole(body, "visibility", DEFAULT_VISIBILITY)
        with self.lock:
            ready = [job for job in self.jobs.values() if is_ready(view(job, now), now)]
            if not ready:
                return None
            job = min(ready, key=claim_order)
            job["state"] = "claimed"
            job["attempts"] += 1
            job["claimed_until"] = now + visibility
            self.save()
            return view(job, now)

    def finish(self, job_id, action, body, now):
        with self.lock:
            job = self.find(job_id)
            if action == "fail":
                message = body.get("error")
                if not isinstance(message, str) or not message:
                    raise BadRequest("error must be a non-empty string")
            delay = whole(body, "delay") if action == "release" else 0
            state = state_at(job, now)
            if state != "claimed":
                raise Conflict(f"job {job_id} is {state}, not claimed")
            if action == "complete":
                job["state"], job["result"] = "done", body.get("result")
            elif action == "fail":
                job["state"], job["error"] = "failed", message
            else:
                job["state"], job["run_at"] = "queued", now + delay
            job["claimed_until"] = None
            self.save()
            return view(job, now)

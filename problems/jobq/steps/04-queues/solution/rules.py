"""What a job looks like at a given time, and the order claims take."""

import re

from errors import BadRequest

STATES = ("queued", "claimed", "done", "failed", "dead")
DEFAULT_VISIBILITY = 300


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def whole(fields, name, default=0, least=0):
    value = fields.get(name, default)
    if not is_int(value) or value < least:
        raise BadRequest(f"{name} must be a whole number of {least} or more")
    return value


def state_at(job, now):
    """A claim ends at claimed_until; the job then goes back to the queue, or dies when out of attempts."""
    if job["state"] != "claimed" or now < job["claimed_until"]:
        return job["state"]
    limit = job["max_attempts"]
    return "dead" if limit is not None and job["attempts"] >= limit else "queued"


def view(job, now):
    state = state_at(job, now)
    return {**job, "state": state, "claimed_until": job["claimed_until"] if state == "claimed" else None}


def is_ready(job, now):
    return job["state"] == "queued" and job["run_at"] <= now


def claim_order(job):
    return (-job["priority"], job["run_at"], job["id"])


QUEUE_NAME = re.compile(r"^[a-z0-9_-]{1,32}$")
DEFAULT_QUEUE = "default"


def check_queue_name(name):
    if not QUEUE_NAME.match(name):
        raise BadRequest("a queue name is 1 to 32 characters among a-z, 0-9, - and _")
    return name


def check_key(key):
    if key is None:
        return None
    if not 1 <= len(key) <= 100 or not key.isprintable() or key != key.strip():
        raise BadRequest("Idempotency-Key must be 1 to 100 printable characters")
    return key

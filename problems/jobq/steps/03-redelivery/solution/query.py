"""The list query language of GET /jobs: filters, an order and a page."""

import re
from urllib.parse import parse_qsl

from errors import BadRequest
from rules import STATES, claim_order, is_ready

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
    """A job list query as (predicates over viewed jobs, order key, offset, limit)."""
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


def run_query(jobs, query, now):
    tests, order, offset, limit = parse_query(query)
    found = sorted((job for job in jobs if all(test(job, now) for test in tests)), key=order)
    page = found[offset:] if limit is None else found[offset : offset + limit]
    return {"items": page, "total": len(found)}

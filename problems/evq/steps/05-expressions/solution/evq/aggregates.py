"""Grouping events and the aggregate functions of `stats` and queries."""

import re

from evq.paths import MISSING, parse_path, resolve
from evq.values import canonical, is_number, sort_key

SPEC = re.compile(r"^\s*(?:(count)|(sum|avg|min|max|distinct)\s*\(\s*([^()\s]+)\s*\))\s*$")


class AggregateError(Exception):
    """An --agg value that is not an aggregate."""


def numbers(values):
    return [value for value in values if is_number(value)]


def agg_sum(values):
    return sum(numbers(values))


def agg_avg(values):
    found = numbers(values)
    return sum(found) / len(found) if found else None


def agg_min(values):
    found = numbers(values)
    return min(found) if found else None


def agg_max(values):
    found = numbers(values)
    return max(found) if found else None


def agg_distinct(values):
    return len({canonical(value) for value in values if value is not MISSING})


def agg_count(values):
    """The number of values other than null (missing ones included as MISSING)."""
    return sum(1 for value in values if value is not MISSING and value is not None)


# Each aggregate takes the values of its argument over a group's rows (MISSING where missing).
FUNCTIONS = {
    "count": agg_count,
    "sum": agg_sum,
    "avg": agg_avg,
    "min": agg_min,
    "max": agg_max,
    "distinct": agg_distinct,
}


def parse_aggregate(text):
    """(output name, function of a list of events) for one --agg SPEC."""
    match = SPEC.match(text)
    if not match:
        raise AggregateError(f"invalid --agg: {text!r}")
    if match.group(1):
        return "count", len
    name, raw_path = match.group(2), match.group(3)
    try:
        path = parse_path(raw_path)
    except ValueError:
        raise AggregateError(f"invalid --agg: {text!r}") from None
    function = FUNCTIONS[name]
    return f"{name}({raw_path})", lambda events: function([resolve(event, path) for event in events])


def path_key(path):
    def key(event):
        value = resolve(event, path)
        return None if value is MISSING else value

    return key


def group(events, keys):
    """[(key values, events)] in ascending order of the key values; `keys` are functions of an event."""
    groups = {}
    for event in events:
        values = [key(event) for key in keys]
        identity = tuple(canonical(value) for value in values)
        groups.setdefault(identity, (values, []))[1].append(event)
    if not keys:
        return [([], events)]
    return sorted(groups.values(), key=lambda item: [sort_key(value) for value in item[0]])


def stats(events, group_paths, aggregates):
    """One row per group: the group's values named by path, then the aggregates."""
    rows = []
    for values, members in group(events, [path_key(path) for _, path in group_paths]):
        row = {name: value for (name, _), value in zip(group_paths, values)}
        for name, function in aggregates:
            row[name] = function(members)
        rows.append(row)
    return rows

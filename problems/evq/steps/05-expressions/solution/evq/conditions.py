"""The --where expression language: FIELD OP VALUE."""

import json
import re

from evq.paths import MISSING, PathError, parse_path, resolve
from evq.values import equal, ordered

PATTERN = re.compile(r"^\s*([A-Za-z0-9_.]+)\s*(!=|<=|>=|=|<|>|~)\s*(.*?)\s*$", re.DOTALL)


class ConditionError(Exception):
    """A --where expression that cannot be parsed."""


def parse_value(text):
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, (list, dict)):
        return text
    return value


def compare(op, actual, wanted):
    if op == "=":
        return equal(actual, wanted)
    if op == "!=":
        return not equal(actual, wanted)
    if op == "~":
        return isinstance(actual, str) and isinstance(wanted, str) and wanted in actual
    if not ordered(actual, wanted):
        return False
    if op == "<":
        return actual < wanted
    if op == "<=":
        return actual <= wanted
    if op == ">":
        return actual > wanted
    return actual >= wanted


def parse_where(text):
    """A predicate on events for one --where expression."""
    match = PATTERN.match(text)
    if not match or match.group(3) == "":
        raise ConditionError(f"invalid --where expression: {text!r}")
    field, op, raw = match.groups()
    try:
        path = parse_path(field)
    except PathError:
        raise ConditionError(f"invalid --where expression: {text!r}") from None
    wanted = parse_value(raw)

    def holds(event):
        actual = resolve(event, path)
        return actual is not MISSING and compare(op, actual, wanted)

    return holds

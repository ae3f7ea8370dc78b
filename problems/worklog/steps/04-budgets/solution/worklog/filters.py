"""The --where language: FIELD OP VALUE."""

import operator
import re

from worklog.entries import is_date

EXPRESSION = re.compile(r"\s*([a-z]+)\s*(<=|>=|!=|=|<|>|~)\s*(.*?)\s*")
ORDERED = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class FilterError(Exception):
    pass


def _date_filter(op, value):
    if not is_date(value):
        raise FilterError("date filters need a date YYYY-MM-DD")
    return lambda entry: ORDERED[op](entry.date, value)


def _minutes_filter(op, value):
    if not re.fullmatch(r"[0-9]+", value):
        raise FilterError("minutes filters need a whole number")
    return lambda entry: ORDERED[op](entry.minutes, int(value))


def _project_filter(op, value):
    if op == "~":
        return lambda entry: value.lower() in entry.project.lower()
    return lambda entry: ORDERED[op](entry.project, value)


def _tag_filter(op, value):
    if op == "=":
        return lambda entry: value in entry.tags
    return lambda entry: value not in entry.tags


FIELDS = {
    "date": (set(ORDERED), _date_filter),
    "minutes": (set(ORDERED), _minutes_filter),
    "project": ({"=", "!=", "~"}, _project_filter),
    "tag": ({"=", "!="}, _tag_filter),
}


def parse_where(text):
    """A predicate on entries; raises FilterError naming the expression when it is invalid."""
    match = EXPRESSION.fullmatch(text)
    if not match or not match.group(3):
        raise FilterError(f"invalid --where expression {text!r} (expected FIELD OP VALUE)")
    field, op, value = match.groups()
    if field not in FIELDS:
        raise FilterError(f"invalid --where expression {text!r}: unknown field {field!r}")
    operators, build = FIELDS[field]
    if op not in operators:
        raise FilterError(f"invalid --where expression {text!r}: {field} does not accept {op}")
    try:
        return build(op, value)
    except FilterError as error:
        raise FilterError(f"invalid --where expression {text!r}: {error}") from None

"""Comparison and ordering rules for JSON values, shared by conditions, grouping and sorting."""

import json


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def equal(left, right):
    if json_type(left) != json_type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(equal(a, b) for a, b in zip(left, right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(equal(left[k], right[k]) for k in left)
    return left == right


def ordered(left, right):
    """Whether the two values can be ordered: two numbers or two strings."""
    return (is_number(left) and is_number(right)) or (isinstance(left, str) and isinstance(right, str))


def sort_key(value):
    """Orders values by type (null, false, true, numbers, strings, arrays and objects), then value."""
    if value is None:
        return (0, 0)
    if value is False:
        return (1, 0)
    if value is True:
        return (2, 0)
    if is_number(value):
        return (3, value)
    if isinstance(value, str):
        return (4, value)
    return (5, json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def canonical(value):
    """A hashable form under which two values are the same exactly when `equal` holds."""
    if is_number(value):
        return ("number", float(value))
    if isinstance(value, (list, dict)):
        return (json_type(value), json.dumps(normalize_numbers(value), sort_keys=True))
    return (json_type(value), value)


def normalize_numbers(value):
    if is_number(value):
        return float(value)
    if isinstance(value, list):
        return [normalize_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: normalize_numbers(item) for key, item in value.items()}
    return value


def number_from_text(text):
    """The number written as `text` in the query-language number syntax (leading zeros allowed)."""
    if any(mark in text for mark in ".eE"):
        return float(text)
    return int(text)

"""Comparison rules for JSON values, shared by every condition."""


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

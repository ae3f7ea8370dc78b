"""Dotted field paths into nested events."""

import re

NAME = re.compile(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$")
MISSING = object()


class PathError(ValueError):
    """Text that is not a field path."""


def parse_path(text):
    if not NAME.match(text):
        raise PathError(f"invalid field path: {text!r}")
    return tuple(text.split("."))


def resolve(event, path):
    """The value at `path`, or MISSING when a part is absent or not inside an object."""
    value = event
    for name in path:
        if not isinstance(value, dict) or name not in value:
            return MISSING
        value = value[name]
    return value

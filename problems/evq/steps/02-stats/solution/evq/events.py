"""Reading JSON Lines event logs."""

import json


class DataError(Exception):
    """The input holds something that is not an event."""


def read_events(path):
    """The events of a JSON Lines file, in file order; blank lines are skipped."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    events = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            raise DataError(f"{path}: line {number}: not a JSON object") from None
        if not isinstance(value, dict):
            raise DataError(f"{path}: line {number}: not a JSON object")
        events.append(value)
    return events

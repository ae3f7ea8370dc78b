"""Reading event logs: JSON Lines files and CSV tables."""

import csv
import json
import re

from evq.values import number_from_text

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


class DataError(Exception):
    """The input holds something that is not an event."""


def lines_of(path):
    """(line number, line) for every line that is not blank."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if line.strip():
            yield number, line


def read_jsonl(path):
    events = []
    for number, line in lines_of(path):
        try:
            value = json.loads(line)
        except ValueError:
            raise DataError(f"{path}: line {number}: not a JSON object") from None
        if not isinstance(value, dict):
            raise DataError(f"{path}: line {number}: not a JSON object")
        events.append(value)
    return events


def csv_value(text):
    if text == "":
        return None
    if NUMBER.fullmatch(text):
        return number_from_text(text)
    return text


def read_csv(path):
    header = None
    events = []
    for number, line in lines_of(path):
        fields = next(csv.reader([line]))
        if header is None:
            header = fields
            continue
        if len(fields) != len(header):
            raise DataError(f"{path}: line {number}: expected {len(header)} fields, found {len(fields)}")
        events.append({name: csv_value(text) for name, text in zip(header, fields)})
    return events


def read_events(path):
    """The events of a file, in file order: CSV for `.csv`, JSON Lines otherwise."""
    return read_csv(path) if path.endswith(".csv") else read_jsonl(path)

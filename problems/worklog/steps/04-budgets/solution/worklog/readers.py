"""Input formats: each reader turns a file into entries or raises DataError."""

import csv
import json
import os
import re

from worklog.entries import DataError, make_entry

REQUIRED_COLUMNS = ("date", "project", "minutes")
MINUTES_PATTERN = re.compile(r"[0-9]+")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise DataError(path, 1, "missing header")
        missing = [name for name in REQUIRED_COLUMNS if name not in header]
        if missing:
            raise DataError(path, 1, f"header lacks column {missing[0]!r}")
        entries = []
        for fields in reader:
            if not fields:
                continue
            if len(fields) != len(header):
                raise DataError(path, reader.line_num, f"expected {len(header)} fields, found {len(fields)}")
            row = dict(zip(header, fields))
            minutes = row["minutes"]
            entries.append(
                make_entry(
                    path,
                    reader.line_num,
                    row["date"],
                    row["project"],
                    int(minutes) if MINUTES_PATTERN.fullmatch(minutes) else None,
                    row.get("tags", "").split(";"),
                    row.get("note", ""),
                )
            )
        return entries


def read_jsonl(path):
    entries = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                raise DataError(path, number, "not valid JSON") from None
            if not isinstance(item, dict):
                raise DataError(path, number, "expected a JSON object")
            tags = item.get("tags", [])
            if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
                raise DataError(path, number, "tags must be an array of strings")
            note = item.get("note", "")
            if not isinstance(note, str):
                raise DataError(path, number, "note must be a string")
            entries.append(
                make_entry(path, number, item.get("date"), item.get("project"), item.get("minutes"), tags, note)
            )
    return entries


READERS = {".csv": read_csv, ".jsonl": read_jsonl}


def read_entries(paths):
    entries = []
    for path in paths:
        reader = READERS.get(os.path.splitext(path)[1])
        if reader is None:
            raise DataError(path, 1, "unsupported file format (expected .csv or .jsonl)")
        entries.extend(reader(path))
    return entries

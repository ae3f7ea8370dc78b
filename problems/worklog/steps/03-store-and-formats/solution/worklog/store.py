"""The store: a JSON file holding every imported entry, replaced atomically on each change."""

import json
import os
import tempfile

from worklog.entries import Entry

FORMAT = "worklog-store/1"


class StoreError(Exception):
    pass


def load(path, must_exist=True):
    if not os.path.exists(path):
        if must_exist:
            raise StoreError(f"no store at {path}")
        return []
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise StoreError(f"{path} is not a worklog store") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), list):
        raise StoreError(f"{path} is not a worklog store")
    try:
        return [
            Entry(item["date"], item["project"], item["minutes"], tuple(item["tags"]), item["note"])
            for item in data["entries"]
        ]
    except (KeyError, TypeError):
        raise StoreError(f"{path} is a damaged worklog store") from None


def save(path, entries):
    data = {
        "format": FORMAT,
        "entries": [
            {"date": e.date, "project": e.project, "minutes": e.minutes, "tags": list(e.tags), "note": e.note}
            for e in entries
        ],
    }
    directory = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(dir=directory, prefix=".worklog-")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(data, out)
    os.replace(temp, path)


def add(path, new_entries):
    """Adds the entries not already stored; returns (imported, skipped, total)."""
    entries = load(path, must_exist=False)
    seen = set(entries)
    imported = 0
    for entry in new_entries:
        if entry in seen:
            continue
        seen.add(entry)
        entries.append(entry)
        imported += 1
    save(path, entries)
    return imported, len(new_entries) - imported, len(entries)

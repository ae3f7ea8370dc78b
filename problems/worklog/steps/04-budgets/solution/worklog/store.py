"""The store: a JSON file holding every imported entry and the monthly budgets, replaced atomically on each change."""

import dataclasses
import json
import os
import tempfile

from worklog.entries import Entry

FORMAT = "worklog-store/2"
# Stores written before budgets existed hold entries only; they are read as having no budgets.
READABLE = {"worklog-store/1", FORMAT}


class StoreError(Exception):
    pass


@dataclasses.dataclass
class Contents:
    entries: list = dataclasses.field(default_factory=list)
    budgets: dict = dataclasses.field(default_factory=dict)  # project -> minutes per month


def _budgets(data):
    budgets = data.get("budgets", {})
    if not isinstance(budgets, dict) or not all(
        isinstance(minutes, int) and not isinstance(minutes, bool) for minutes in budgets.values()
    ):
        raise TypeError("budgets")
    return dict(budgets)


def load(path, must_exist=True):
    if not os.path.exists(path):
        if must_exist:
            raise StoreError(f"no store at {path}")
        return Contents()
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise StoreError(f"{path} is not a worklog store") from None
    if not isinstance(data, dict) or data.get("format") not in READABLE or not isinstance(data.get("entries"), list):
        raise StoreError(f"{path} is not a worklog store")
    try:
        entries = [
            Entry(item["date"], item["project"], item["minutes"], tuple(item["tags"]), item["note"])
            for item in data["entries"]
        ]
        return Contents(entries, _budgets(data))
    except (KeyError, TypeError):
        raise StoreError(f"{path} is a damaged worklog store") from None


def save(path, contents):
    data = {
        "format": FORMAT,
        "entries": [
            {"date": e.date, "project": e.project, "minutes": e.minutes, "tags": list(e.tags), "note": e.note}
            for e in contents.entries
        ],
        "budgets": contents.budgets,
    }
    directory = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(dir=directory, prefix=".worklog-")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(data, out)
    os.replace(temp, path)


def add(path, new_entries):
    """Adds the entries not already stored; returns (imported, skipped, total)."""
    contents = load(path, must_exist=False)
    seen = set(contents.entries)
    imported = 0
    for entry in new_entries:
        if entry in seen:
            continue
        seen.add(entry)
        contents.entries.append(entry)
        imported += 1
    save(path, contents)
    return imported, len(new_entries) - imported, len(contents.entries)


def set_budget(path, project, minutes):
    contents = load(path, must_exist=False)
    contents.budgets[project] = minutes
    save(path, contents)


def unset_budget(path, project):
    contents = load(path)
    if project not in contents.budgets:
        raise StoreError(f"no budget set for {project}")
    del contents.budgets[project]
    save(path, contents)

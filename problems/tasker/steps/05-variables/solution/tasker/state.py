"""The record of each task's last successful run, kept in .tasker/state.json."""

import hashlib
import json
import os

DIRECTORY = ".tasker"
FILE = os.path.join(DIRECTORY, "state.json")


def digest(path):
    """The SHA-256 of a file's content, or None when it does not exist."""
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def snapshot(task):
    """What is recorded for a task: its commands and the content of its files."""
    return {
        "commands": task.commands,
        "inputs": [[path, digest(path)] for path in task.inputs],
        "outputs": [[path, digest(path)] for path in task.outputs],
    }


class State:
    def __init__(self):
        self.records = {}
        try:
            with open(FILE, encoding="utf-8") as handle:
                loaded = json.load(handle)
            if isinstance(loaded, dict):
                self.records = loaded
        except (OSError, ValueError):
            pass

    def record_of(self, name):
        record = self.records.get(name)
        return record if isinstance(record, dict) else None

    def record(self, task):
        self.records[task.name] = snapshot(task)
        self.save()

    def forget(self, task):
        if self.records.pop(task.name, None) is not None:
            self.save()

    def save(self):
        os.makedirs(DIRECTORY, exist_ok=True)
        temporary = FILE + ".tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(self.records, handle, indent=1, sort_keys=True)
        os.replace(temporary, FILE)

"""Links with their revisions, in memory, optionally mirrored to a JSON file after every change."""

import json
import os
import threading

from errors import NotFound, PreconditionFailed


def check_revision(expected, current):
    """`expected` is an If-Match header value (or None: no condition)."""
    if expected is None or expected.strip() == "*":
        return
    if expected.strip() != f'"{current}"':
        raise PreconditionFailed(f"the link is at revision {current}, not {expected.strip().strip(chr(34))}")


class Store:
    def __init__(self, path=None):
        self.path = path
        # id -> list of field dicts, one per revision (the last is current).
        self.history = {}
        self.next_id = 1
        self.lock = threading.Lock()
        if path and os.path.exists(path):
            with open(path, encoding="utf-8") as file:
                state = json.load(file)
            self.history = {int(key): revisions for key, revisions in state["history"].items()}
            self.next_id = state["next_id"]

    def save(self):
        if not self.path:
            return
        temporary = f"{self.path}.tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump({"next_id": self.next_id, "history": self.history}, file)
        os.replace(temporary, self.path)

    def revisions(self, link_id):
        revisions = self.history.get(link_id)
        if revisions is None:
            raise NotFound(f"no link with id {link_id}")
        return revisions

    def get(self, link_id):
        """The current link and its revision number."""
        revisions = self.revisions(link_id)
        return {"id": link_id, **revisions[-1]}, len(revisions)

    def create_many(self, entries):
        with self.lock:
            created = []
            for fields in entries:
                self.history[self.next_id] = [fields]
                created.append({"id": self.next_id, **fields})
                self.next_id += 1
            self.save()
            return created

    def update(self, link_id, fields, if_match):
        with self.lock:
            revisions = self.revisions(link_id)
            check_revision(if_match, len(revisions))
            revisions.append({**revisions[-1], **fields})
            self.save()
            return self.get(link_id)

    def delete(self, link_id, if_match):
        with self.lock:
            check_revision(if_match, len(self.revisions(link_id)))
            del self.history[link_id]
            self.save()

    def all(self):
        return [{"id": key, **self.history[key][-1]} for key in sorted(self.history)]

    def history_of(self, link_id):
        return [{"rev": number, **fields} for number, fields in enumerate(self.revisions(link_id), start=1)]

    def tag_counts(self):
        counts = {}
        for link in self.all():
            for tag in link["tags"]:
                counts[tag] = counts.get(tag, 0) + 1
        return [{"tag": tag, "count": counts[tag]} for tag in sorted(counts)]

"""The links, in memory, optionally mirrored to a JSON file after every change."""

import json
import os
import threading

from errors import NotFound


class Store:
    def __init__(self, path=None):
        self.path = path
        self.links = {}
        self.next_id = 1
        self.lock = threading.Lock()
        if path and os.path.exists(path):
            with open(path, encoding="utf-8") as file:
                state = json.load(file)
            self.links = {link["id"]: link for link in state["links"]}
            self.next_id = state["next_id"]

    def save(self):
        if not self.path:
            return
        temporary = f"{self.path}.tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump({"next_id": self.next_id, "links": self.all()}, file)
        os.replace(temporary, self.path)

    def create_many(self, entries):
        with self.lock:
            created = []
            for fields in entries:
                link = {"id": self.next_id, **fields}
                self.links[link["id"]] = link
                self.next_id += 1
                created.append(link)
            self.save()
            return created

    def get(self, link_id):
        link = self.links.get(link_id)
        if link is None:
            raise NotFound(f"no link with id {link_id}")
        return link

    def update(self, link_id, fields):
        with self.lock:
            link = {**self.get(link_id), **fields}
            self.links[link_id] = link
            self.save()
            return link

    def delete(self, link_id):
        with self.lock:
            self.get(link_id)
            del self.links[link_id]
            self.save()

    def all(self):
        return [self.links[key] for key in sorted(self.links)]

    def tag_counts(self):
        counts = {}
        for link in self.links.values():
            for tag in link["tags"]:
                counts[tag] = counts.get(tag, 0) + 1
        return [{"tag": tag, "count": counts[tag]} for tag in sorted(counts)]

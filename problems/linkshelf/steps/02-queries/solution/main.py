"""linkshelf: saved links over HTTP (standard library only)."""

import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class BadRequest(Exception):
    pass


class NotFound(Exception):
    pass


class MethodNotAllowed(Exception):
    pass


def clean_fields(body, partial):
    """The valid, normalized link fields of a request body; all three unless `partial`."""
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    fields = {}
    if "url" in body or not partial:
        url = body.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise BadRequest("url must be a string starting with http:// or https://")
        fields["url"] = url
    if "title" in body or not partial:
        title = body.get("title")
        if not isinstance(title, str) or not title.strip():
            raise BadRequest("title must be a non-empty string")
        fields["title"] = title.strip()
    if "tags" in body or not partial:
        tags = body.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            raise BadRequest("tags must be a list of strings")
        fields["tags"] = sorted({tag.lower() for tag in tags})
    return fields


SORT_KEYS = {
    "id": (lambda link: link["id"], False),
    "-id": (lambda link: link["id"], True),
    "title": (lambda link: (link["title"], link["id"]), False),
    "-title": (lambda link: (link["title"], -link["id"]), True),
}
QUERY_PARAMETERS = {"tag", "q", "sort", "limit", "offset"}


def whole_number(values, name, low, high, default):
    if not values:
        return default
    text = values[-1]
    if not text.isdigit() or not low <= int(text) <= high:
        raise BadRequest(f"{name} must be a whole number from {low} to {high}")
    return int(text)


class Query:
    """A parsed GET /links query string."""

    def __init__(self, query_string):
        params = parse_qs(query_string, keep_blank_values=True)
        unknown = set(params) - QUERY_PARAMETERS
        if unknown:
            raise BadRequest(f"unknown query parameter: {sorted(unknown)[0]}")
        self.tags = [tag.lower() for tag in params.get("tag", [])]
        self.text = params.get("q", [""])[-1].lower()
        sort = params.get("sort", ["id"])[-1]
        if sort not in SORT_KEYS:
            raise BadRequest(f"sort must be one of {', '.join(SORT_KEYS)}")
        self.sort = SORT_KEYS[sort]
        self.limit = whole_number(params.get("limit"), "limit", 1, 100, 100)
        self.offset = whole_number(params.get("offset"), "offset", 0, 10**9, 0)

    def matches(self, link):
        if not all(tag in link["tags"] for tag in self.tags):
            return False
        return self.text in link["title"].lower() or self.text in link["url"].lower()

    def run(self, links):
        key, reverse = self.sort
        found = sorted((link for link in links if self.matches(link)), key=key, reverse=reverse)
        return {"items": found[self.offset : self.offset + self.limit], "total": len(found)}


class Store:
    def __init__(self):
        self.links = {}
        self.next_id = 1
        self.lock = threading.Lock()

    def create(self, fields):
        with self.lock:
            link = {"id": self.next_id, **fields}
            self.links[link["id"]] = link
            self.next_id += 1
            return link

    def get(self, link_id):
        link = self.links.get(link_id)
        if link is None:
            raise NotFound(f"no link with id {link_id}")
        return link

    def update(self, link_id, fields):
        with self.lock:
            link = {**self.get(link_id), **fields}
            self.links[link_id] = link
            return link

    def delete(self, link_id):
        with self.lock:
            self.get(link_id)
            del self.links[link_id]

    def all(self):
        return [self.links[key] for key in sorted(self.links)]

    def tag_counts(self):
        counts = {}
        for link in self.links.values():
            for tag in link["tags"]:
                counts[tag] = counts.get(tag, 0) + 1
        return [{"tag": tag, "count": counts[tag]} for tag in sorted(counts)]


STORE = Store()
LINK_PATH = re.compile(r"^/links/(\d+)$")


def not_allowed(method, path):
    return MethodNotAllowed(f"{method} is not supported on {path}")


def route(method, path, query, body):
    if path == "/links":
        if method == "GET":
            return 200, Query(query).run(STORE.all())
        if method == "POST":
            return 201, STORE.create(clean_fields(body(), partial=False))
        raise not_allowed(method, path)
    if path == "/tags":
        if method != "GET":
            raise not_allowed(method, path)
        return 200, {"items": STORE.tag_counts()}
    if path.startswith("/links/"):
        match = LINK_PATH.match(path)
        if method not in ("GET", "PATCH", "DELETE"):
            raise not_allowed(method, path)
        if not match:
            raise NotFound(f"no link at {path}")
        link_id = int(match.group(1))
        if method == "GET":
            return 200, STORE.get(link_id)
        if method == "PATCH":
            STORE.get(link_id)
            return 200, STORE.update(link_id, clean_fields(body(), partial=True))
        STORE.delete(link_id)
        return 204, None
    raise NotFound(f"no such path: {path}")


class Handler(BaseHTTPRequestHandler):
    def handle_any(self):
        def body():
            length = int(self.headers.get("Content-Length") or 0)
            try:
                return json.loads(self.rfile.read(length) or b"null")
            except ValueError:
                raise BadRequest("the body is not valid JSON") from None

        url = urlsplit(self.path)
        try:
            status, payload = route(self.command, url.path, url.query, body)
        except BadRequest as error:
            status, payload = 400, {"error": str(error)}
        except NotFound as error:
            status, payload = 404, {"error": str(error)}
        except MethodNotAllowed as error:
            status, payload = 405, {"error": str(error)}
        self.send_response(status)
        if payload is None:
            self.end_headers()
            return
        data = json.dumps(payload).encode()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8080"))), Handler)
    server.serve_forever()

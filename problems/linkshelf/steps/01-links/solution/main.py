"""linkshelf: saved links over HTTP (standard library only)."""

import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class BadRequest(Exception):
    pass


class NotFound(Exception):
    pass


class MethodNotAllowed(Exception):
    pass


def clean_link(body):
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    url = body.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise BadRequest("url must be a string starting with http:// or https://")
    title = body.get("title")
    if not isinstance(title, str) or not title.strip():
        raise BadRequest("title must be a non-empty string")
    tags = body.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise BadRequest("tags must be a list of strings")
    return {"url": url, "title": title.strip(), "tags": sorted({tag.lower() for tag in tags})}


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

    def delete(self, link_id):
        with self.lock:
            self.get(link_id)
            del self.links[link_id]

    def all(self):
        return [self.links[key] for key in sorted(self.links)]


STORE = Store()
LINK_PATH = re.compile(r"^/links/(\d+)$")


def route(method, path, body):
    if path == "/links":
        if method == "GET":
            items = STORE.all()
            return 200, {"items": items, "total": len(items)}
        if method == "POST":
            return 201, STORE.create(clean_link(body()))
        raise MethodNotAllowed(f"{method} is not supported on {path}")
    match = LINK_PATH.match(path)
    if match or path.startswith("/links/"):
        if method not in ("GET", "DELETE"):
            raise MethodNotAllowed(f"{method} is not supported on {path}")
        if not match:
            raise NotFound(f"no link at {path}")
        link_id = int(match.group(1))
        if method == "GET":
            return 200, STORE.get(link_id)
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

        try:
            status, payload = route(self.command, self.path.split("?")[0], body)
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

"""linkshelf: saved links over HTTP (standard library only)."""

import json
import os
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from errors import BadRequest, MethodNotAllowed, NotFound
from fields import clean_batch, clean_fields
from query import Query
from store import Store

STORE = Store(os.environ.get("LINKSHELF_DATA") or None)
LINK_PATH = re.compile(r"^/links/(\d+)$")


def not_allowed(method, path):
    return MethodNotAllowed(f"{method} is not supported on {path}")


def route(method, path, query, body):
    if path == "/links":
        if method == "GET":
            return 200, Query(query).run(STORE.all())
        if method == "POST":
            return 201, STORE.create_many([clean_fields(body(), partial=False)])[0]
        raise not_allowed(method, path)
    if path == "/links/batch":
        if method != "POST":
            raise not_allowed(method, path)
        return 201, {"items": STORE.create_many(clean_batch(body()))}
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
            status, payload = 400, {"error": str(error), **error.extra}
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

"""linkshelf: saved links over HTTP (standard library only)."""

import json
import os
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from errors import BadRequest, MethodNotAllowed, NotFound, PreconditionFailed
from fields import clean_batch, clean_fields
from query import Query
from store import Store

STORE = Store(os.environ.get("LINKSHELF_DATA") or None)
LINK_PATH = re.compile(r"^/links/(\d+)(/history)?$")


class Reply:
    def __init__(self, status, payload, revision=None):
        self.status = status
        self.payload = payload
        self.revision = revision


def not_allowed(method, path):
    return MethodNotAllowed(f"{method} is not supported on {path}")


def link_route(method, link_id, history, request):
    if history:
        if method != "GET":
            raise not_allowed(method, request.path)
        return Reply(200, {"items": STORE.history_of(link_id)})
    if method == "GET":
        return Reply(200, *STORE.get(link_id))
    if method == "PATCH":
        STORE.revisions(link_id)
        fields = clean_fields(request.body(), partial=True)
        return Reply(200, *STORE.update(link_id, fields, request.if_match))
    if method == "DELETE":
        STORE.delete(link_id, request.if_match)
        return Reply(204, None)
    raise not_allowed(method, request.path)


def route(method, request):
    path = request.path
    if path == "/links":
        if method == "GET":
            return Reply(200, Query(request.query).run(STORE.all()))
        if method == "POST":
            return Reply(201, STORE.create_many([clean_fields(request.body(), partial=False)])[0], 1)
        raise not_allowed(method, path)
    if path == "/links/batch":
        if method != "POST":
            raise not_allowed(method, path)
        return Reply(201, {"items": STORE.create_many(clean_batch(request.body()))})
    if path == "/tags":
        if method != "GET":
            raise not_allowed(method, path)
        return Reply(200, {"items": STORE.tag_counts()})
    if path.startswith("/links/"):
        match = LINK_PATH.match(path)
        if not match:
            if method not in ("GET", "PATCH", "DELETE"):
                raise not_allowed(method, path)
            raise NotFound(f"no link at {path}")
        return link_route(method, int(match.group(1)), bool(match.group(2)), request)
    raise NotFound(f"no such path: {path}")


class Handler(BaseHTTPRequestHandler):
    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            raise BadRequest("the body is not valid JSON") from None

    def handle_any(self):
        url = urlsplit(self.path)
        self.query = url.query
        self.if_match = self.headers.get("If-Match")
        request_path = self.path
        self.path = url.path
        try:
            reply = route(self.command, self)
        except BadRequest as error:
            reply = Reply(400, {"error": str(error), **error.extra})
        except NotFound as error:
            reply = Reply(404, {"error": str(error)})
        except MethodNotAllowed as error:
            reply = Reply(405, {"error": str(error)})
        except PreconditionFailed as error:
            reply = Reply(412, {"error": str(error)})
        self.path = request_path
        self.send_response(reply.status)
        if reply.revision is not None:
            self.send_header("ETag", f'"{reply.revision}"')
        if reply.payload is None:
            self.end_headers()
            return
        data = json.dumps(reply.payload).encode()
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

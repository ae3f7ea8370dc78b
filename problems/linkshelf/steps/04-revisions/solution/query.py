"""GET /links query strings: filters, order and pages."""

from urllib.parse import parse_qs

from errors import BadRequest

SORT_KEYS = {
    "id": (lambda link: link["id"], False),
    "-id": (lambda link: link["id"], True),
    "title": (lambda link: (link["title"], link["id"]), False),
    "-title": (lambda link: (link["title"], -link["id"]), True),
}
PARAMETERS = {"tag", "q", "sort", "limit", "offset"}


def whole_number(values, name, low, high, default):
    if not values:
        return default
    text = values[-1]
    if not text.isdigit() or not low <= int(text) <= high:
        raise BadRequest(f"{name} must be a whole number from {low} to {high}")
    return int(text)


class Query:
    def __init__(self, query_string):
        params = parse_qs(query_string, keep_blank_values=True)
        unknown = set(params) - PARAMETERS
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

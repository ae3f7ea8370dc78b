"""The path language: names, quoted names, indices and wildcards."""

import re

BARE = re.compile(r"[A-Za-z0-9_-]+")
INDEX = re.compile(r"\[(\*|-?\d+)\]")


class PathSyntaxError(Exception):
    """A path that does not follow the syntax; a command-line error."""


def quoted_name(text, pos):
    """(name, position after the closing quote) for a quoted name starting at `pos`."""
    out = []
    pos += 1
    while pos < len(text):
        char = text[pos]
        if char == '"':
            return "".join(out), pos + 1
        if char == "\\" and pos + 1 < len(text) and text[pos + 1] in '"\\':
            out.append(text[pos + 1])
            pos += 2
            continue
        out.append(char)
        pos += 1
    raise PathSyntaxError(f"unterminated quoted name in {text!r}")


def name_at(text, pos):
    """(part, position after it) for a name, a quoted name or `*`."""
    if text.startswith("*", pos):
        return ("any",), pos + 1
    if text.startswith('"', pos):
        name, pos = quoted_name(text, pos)
        return ("name", name), pos
    match = BARE.match(text, pos)
    if not match:
        raise PathSyntaxError(f"invalid path {text!r}")
    return ("name", match.group()), match.end()


def parse_path(text, stop=None):
    """(parts, position where parsing stopped); with `stop`, parsing ends at that character."""
    parts = []
    part, pos = name_at(text, 0)
    parts.append(part)
    while pos < len(text):
        if stop and text[pos] == stop:
            return parts, pos
        if text[pos] == ".":
            part, pos = name_at(text, pos + 1)
            parts.append(part)
            continue
        match = INDEX.match(text, pos)
        if not match:
            raise PathSyntaxError(f"invalid path {text!r}")
        index = match.group(1)
        parts.append(("every",) if index == "*" else ("index", int(index)))
        pos = match.end()
    if stop:
        raise PathSyntaxError(f"expected {stop!r} after the path in {text!r}")
    return parts, pos


def has_wildcard(parts):
    return any(part[0] in ("any", "every") for part in parts)


def step(value, part):
    """[(canonical part, value)] selected by one part from one value."""
    kind = part[0]
    if kind == "name":
        if not isinstance(value, dict):
            return []
        name = part[1] if part[1] in value else part[1].lower()
        return [(("name", name), value[name])] if name in value else []
    if kind == "any":
        if not isinstance(value, dict):
            return []
        return [(("name", name), value[name]) for name in sorted(value)]
    if not isinstance(value, list):
        return []
    if kind == "every":
        return [(("index", index), item) for index, item in enumerate(value)]
    index = part[1] + len(value) if part[1] < 0 else part[1]
    return [(("index", index), value[index])] if 0 <= index < len(value) else []


def select(config, parts):
    """[(canonical parts, value)] selected by a path, in listing order."""
    found = [((), config)]
    for part in parts:
        found = [(path + (chosen,), child) for path, value in found for chosen, child in step(value, part)]
    return found


def format_path(parts):
    out = ""
    for kind, value in parts:
        if kind == "index":
            out += f"[{value}]"
            continue
        if out:
            out += "."
        if BARE.fullmatch(value):
            out += value
        else:
            out += '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return out

"""Reading the TOML subset: tables, dotted keys, strings, numbers, booleans and one-line arrays."""

import re

from confstack.errors import ConfigError

BARE = re.compile(r"[A-Za-z0-9_-]+")
SCALAR = re.compile(r"(true|false|[+-]?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)(?=[\s,\]#]|$)")
ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}


class LineError(Exception):
    """Something wrong on the line being parsed."""


class Cursor:
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def skip_space(self):
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def peek(self):
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char):
        self.skip_space()
        if self.peek() != char:
            raise LineError(f"expected {char!r}")
        self.pos += 1

    def at_end(self):
        """True when only whitespace and a comment are left."""
        self.skip_space()
        return self.peek() in ("", "#")


def basic_string(cursor):
    cursor.pos += 1
    out = []
    text = cursor.text
    while True:
        if cursor.pos >= len(text):
            raise LineError("unterminated string")
        char = text[cursor.pos]
        if char == '"':
            cursor.pos += 1
            return "".join(out)
        if char == "\\":
            code = text[cursor.pos + 1 : cursor.pos + 2]
            if code in ESCAPES:
                out.append(ESCAPES[code])
                cursor.pos += 2
            elif code == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", text[cursor.pos + 2 : cursor.pos + 6]):
                out.append(chr(int(text[cursor.pos + 2 : cursor.pos + 6], 16)))
                cursor.pos += 6
            else:
                raise LineError("invalid escape in string")
            continue
        out.append(char)
        cursor.pos += 1


def literal_string(cursor):
    end = cursor.text.find("'", cursor.pos + 1)
    if end < 0:
        raise LineError("unterminated string")
    value = cursor.text[cursor.pos + 1 : end]
    cursor.pos = end + 1
    return value


def array(cursor):
    cursor.pos += 1
    items = []
    while True:
        cursor.skip_space()
        if cursor.peek() == "]":
            cursor.pos += 1
            return items
        items.append(value(cursor))
        cursor.skip_space()
        if cursor.peek() == ",":
            cursor.pos += 1
        elif cursor.peek() != "]":
            raise LineError("expected ',' or ']' in array")


def value(cursor):
    cursor.skip_space()
    char = cursor.peek()
    if char == '"':
        return basic_string(cursor)
    if char == "'":
        return literal_string(cursor)
    if char == "[":
        return array(cursor)
    match = SCALAR.match(cursor.text, cursor.pos)
    if not match:
        raise LineError("invalid value")
    cursor.pos = match.end()
    word = match.group(1)
    if word in ("true", "false"):
        return word == "true"
    if match.group(2) or match.group(3):
        return float(word)
    return int(word)


def key(cursor):
    """The names of a (possibly dotted) key."""
    names = []
    while True:
        cursor.skip_space()
        if cursor.peek() == '"':
            names.append(basic_string(cursor))
        else:
            match = BARE.match(cursor.text, cursor.pos)
            if not match:
                raise LineError("expected a key")
            names.append(match.group())
            cursor.pos = match.end()
        cursor.skip_space()
        if cursor.peek() != ".":
            return names
        cursor.pos += 1


def descend(table, names):
    """The table at `names` under `table`, creating missing tables."""
    for name in names:
        child = table.setdefault(name, {})
        if not isinstance(child, dict):
            raise LineError(f"'{name}' is not a table")
        table = child
    return table


def parse_toml(text):
    root = {}
    current = root
    headers = set()
    for number, line in enumerate(text.split("\n"), start=1):
        cursor = Cursor(line.rstrip("\r"))
        try:
            if cursor.at_end():
                continue
            if cursor.peek() == "[":
                cursor.pos += 1
                names = key(cursor)
                cursor.expect("]")
                if tuple(names) in headers:
                    raise LineError("table defined twice")
                headers.add(tuple(names))
                current = descend(root, names)
            else:
                names = key(cursor)
                cursor.expect("=")
                parsed = value(cursor)
                table = descend(current, names[:-1])
                if names[-1] in table:
                    raise LineError(f"key '{names[-1]}' defined twice")
                table[names[-1]] = parsed
            if not cursor.at_end():
                raise LineError("unexpected text")
        except LineError as error:
            raise ConfigError(f"line {number}: {error}") from None
    return root


def parse_value(text):
    """The TOML value written as `text` (surrounding whitespace allowed), or raise LineError."""
    cursor = Cursor(text.strip())
    parsed = value(cursor)
    cursor.skip_space()
    if cursor.pos != len(cursor.text):
        raise LineError("unexpected text after the value")
    return parsed

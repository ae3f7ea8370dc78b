"""Tokens of the query language, each with its 1-based position in the query."""

import re
from dataclasses import dataclass

TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
      | (?P<word>[A-Za-z_][A-Za-z0-9_./-]*)
      | (?P<string>'(?:[^']|'')*')
      | (?P<symbol>!=|<=|>=|[(),*=<>~+/-])""",
    re.VERBOSE,
)


class QueryError(Exception):
    """A query that cannot be run, with a message for the user."""


class SyntaxFault(QueryError):
    def __init__(self, position, reason):
        super().__init__(f"syntax error at position {position}: {reason}")
        self.position = position


@dataclass
class Token:
    kind: str  # word | number | string | symbol | end
    text: str
    position: int

    @property
    def keyword(self):
        return self.text.upper() if self.kind == "word" else None


def tokenize(query):
    tokens = []
    index = 0
    while index < len(query):
        match = TOKEN.match(query, index)
        if not match:
            raise SyntaxFault(index + 1, f"unexpected character {query[index]!r}")
        kind = match.lastgroup
        if kind != "space":
            tokens.append(Token(kind, match.group(), index + 1))
        index = match.end()
    tokens.append(Token("end", "", len(query) + 1))
    return tokens

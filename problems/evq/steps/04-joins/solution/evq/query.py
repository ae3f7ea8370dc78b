"""The parsed form of a query and a recursive-descent parser producing it."""

import re
from dataclasses import dataclass, field

from evq.lexer import QueryError, SyntaxFault, tokenize
from evq.paths import NAME
from evq.values import number_from_text

AGGREGATES = ("count", "sum", "avg", "min", "max", "distinct")
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "~")
RESERVED = {
    "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "ASC", "DESC", "LIMIT", "AS",
    "AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "JOIN", "INNER", "LEFT", "ON",
}
ALIAS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class Column:
    name: str
    path: tuple = None  # a field column
    function: str = None  # an aggregate column: count | sum | ...
    argument: tuple = None  # the aggregate's path; None for count(*)
    text: str = ""  # how the path was written


@dataclass
class Compare:
    path: tuple
    op: str
    value: object


@dataclass
class IsNull:
    path: tuple
    negated: bool


@dataclass
class Not:
    operand: object


@dataclass
class Logical:
    op: str  # AND | OR
    operands: list


@dataclass
class Join:
    source: str
    alias: str
    left: bool  # LEFT JOIN keeps rows without a match
    on: tuple  # the two paths compared


@dataclass
class Query:
    columns: list  # [] for *
    source: str
    alias: str = None
    joins: list = field(default_factory=list)
    where: object = None
    group_by: list = field(default_factory=list)  # [(text, path)]
    order_by: list = field(default_factory=list)  # [(name, descending)]
    limit: int = None

    @property
    def grouped(self):
        return bool(self.group_by) or any(column.function for column in self.columns)


class Parser:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.index = 0

    @property
    def current(self):
        return self.tokens[self.index]

    def advance(self):
        token = self.current
        self.index += 1
        return token

    def fail(self, reason):
        raise SyntaxFault(self.current.position, reason)

    def at_keyword(self, *words):
        return self.current.keyword in words

    def accept_keyword(self, word):
        if self.current.keyword == word:
            return self.advance()
        return None

    def expect_keyword(self, word):
        if not self.accept_keyword(word):
            self.fail(f"expected {word}")

    def accept_symbol(self, symbol):
        if self.current.kind == "symbol" and self.current.text == symbol:
            return self.advance()
        return None

    def expect_symbol(self, symbol):
        if not self.accept_symbol(symbol):
            self.fail(f"expected {symbol!r}")

    def path(self, what="a field path"):
        token = self.current
        if token.kind != "word" or token.keyword in RESERVED or not NAME.match(token.text):
            self.fail(f"expected {what}")
        self.advance()
        return token.text, tuple(token.text.split("."))

    def parse(self):
        self.expect_keyword("SELECT")
        columns = self.columns()
        self.expect_keyword("FROM")
        query = Query(columns=columns, source=self.source())
        query.alias = self.alias(required=False)
        while self.at_keyword("JOIN", "INNER", "LEFT"):
            if query.alias is None:
                self.fail("expected AS and an alias")
            query.joins.append(self.join())
        if self.accept_keyword("WHERE"):
            query.where = self.condition()
        if self.accept_keyword("GROUP"):
            self.expect_keyword("BY")
            query.group_by = self.comma_list(self.path)
        if self.accept_keyword("ORDER"):
            self.expect_keyword("BY")
            query.order_by = self.comma_list(self.order_key)
        if self.accept_keyword("LIMIT"):
            query.limit = self.limit()
        if self.current.kind != "end":
            self.fail("unexpected text after the query")
        return query

    def comma_list(self, item):
        items = [item()]
        while self.accept_symbol(","):
            items.append(item())
        return items

    def columns(self):
        if self.accept_symbol("*"):
            return []
        return self.comma_list(self.column)

    def column(self):
        token = self.current
        following = self.tokens[self.index + 1]
        if token.kind == "word" and following.kind == "symbol" and following.text == "(":
            column = self.aggregate()
        else:
            text, path = self.path("a column")
            column = Column(name=text, path=path, text=text)
        if self.accept_keyword("AS"):
            alias = self.current
            if alias.kind != "word" or alias.keyword in RESERVED or not ALIAS.match(alias.text):
                self.fail("expected a column name")
            column.name = self.advance().text
        return column

    def aggregate(self):
        name = self.current.text.lower()
        if name not in AGGREGATES:
            self.fail(f"unknown function {self.current.text!r}")
        self.advance()
        self.expect_symbol("(")
        if name == "count" and self.accept_symbol("*"):
            self.expect_symbol(")")
            return Column(name="count(*)", function="count")
        text, path = self.path()
        self.expect_symbol(")")
        return Column(name=f"{name}({text})", function=name, argument=path, text=text)

    def source(self):
        token = self.current
        if token.kind == "string":
            self.advance()
            return unquote(token.text)
        if token.kind == "word" and token.keyword not in RESERVED:
            self.advance()
            return token.text
        self.fail("expected a file name")

    def alias(self, required):
        if not self.accept_keyword("AS"):
            if required:
                self.fail("expected AS and an alias")
            return None
        token = self.current
        if token.kind != "word" or token.keyword in RESERVED or not ALIAS.match(token.text):
            self.fail("expected an alias")
        return self.advance().text

    def join(self):
        left = bool(self.accept_keyword("LEFT"))
        if not left:
            self.accept_keyword("INNER")
        self.expect_keyword("JOIN")
        source = self.source()
        alias = self.alias(required=True)
        self.expect_keyword("ON")
        _, first = self.path()
        self.expect_symbol("=")
        _, second = self.path()
        return Join(source=source, alias=alias, left=left, on=(first, second))

    def condition(self):
        operands = [self.conjunction()]
        while self.accept_keyword("OR"):
            operands.append(self.conjunction())
        return operands[0] if len(operands) == 1 else Logical("OR", operands)

    def conjunction(self):
        operands = [self.negation()]
        while self.accept_keyword("AND"):
            operands.append(self.negation())
        return operands[0] if len(operands) == 1 else Logical("AND", operands)

    def negation(self):
        if self.accept_keyword("NOT"):
            return Not(self.negation())
        if self.accept_symbol("("):
            inner = self.condition()
            self.expect_symbol(")")
            return inner
        return self.comparison()

    def comparison(self):
        _, path = self.path("a condition")
        if self.accept_keyword("IS"):
            negated = bool(self.accept_keyword("NOT"))
            self.expect_keyword("NULL")
            return IsNull(path, negated)
        token = self.current
        if token.kind != "symbol" or token.text not in OPERATORS:
            self.fail("expected a comparison operator")
        self.advance()
        return Compare(path, token.text, self.literal())

    def literal(self):
        token = self.current
        if token.kind == "number":
            self.advance()
            return number_from_text(token.text)
        if token.kind == "string":
            self.advance()
            return unquote(token.text)
        constants = {"TRUE": True, "FALSE": False, "NULL": None}
        if token.keyword in constants:
            self.advance()
            return constants[token.keyword]
        self.fail("expected a literal")

    def order_key(self):
        token = self.current
        if token.kind != "word" or token.keyword in RESERVED:
            self.fail("expected a column name")
        self.advance()
        descending = False
        if self.accept_keyword("DESC"):
            descending = True
        else:
            self.accept_keyword("ASC")
        return token.text, descending

    def limit(self):
        token = self.current
        if token.kind != "number" or not token.text.isdigit():
            self.fail("expected a whole number")
        self.advance()
        return int(token.text)


def unquote(text):
    return text[1:-1].replace("''", "'")


def parse_query(text):
    query = Parser(text).parse()
    check(query)
    return query


def condition_paths(condition):
    if isinstance(condition, (Compare, IsNull)):
        return [condition.path]
    if isinstance(condition, Not):
        return condition_paths(condition.operand)
    if isinstance(condition, Logical):
        return [path for operand in condition.operands for path in condition_paths(operand)]
    return []


def check_aliases(query):
    """With aliases, every path starts with one, and each join compares itself with an earlier source."""
    seen = [query.alias]
    for join in query.joins:
        if join.alias in seen:
            raise QueryError(f"duplicate alias {join.alias!r}")
        sides = {join.on[0][0], join.on[1][0]}
        if join.alias not in sides or not (sides - {join.alias}) & set(seen) or len(sides) != 2:
            raise QueryError(f"the ON condition of {join.alias!r} must compare it with an earlier source")
        seen.append(join.alias)
    paths = [column.path or column.argument for column in query.columns]
    paths += condition_paths(query.where) + [path for _, path in query.group_by]
    if not query.columns:
        paths += [tuple(name.split(".")) for name, _ in query.order_by]
    for path in paths:
        if path is not None and path[0] not in seen:
            raise QueryError(f"unknown alias {path[0]!r}")


def check(query):
    """Rules about the query as a whole, beyond its grammar."""
    if query.alias is not None:
        check_aliases(query)
    if not query.grouped:
        names = {column.name for column in query.columns}
        for name, _ in query.order_by:
            if query.columns and name not in names:
                raise QueryError(f"ORDER BY names {name!r}, which is not an output column")
        return
    if not query.columns:
        raise QueryError("column '*' cannot be used with aggregates or GROUP BY")
    grouped = {text for text, _ in query.group_by}
    for column in query.columns:
        if not column.function and column.text not in grouped:
            raise QueryError(f"column {column.text!r} must appear in GROUP BY or be an aggregate")
    names = {column.name for column in query.columns}
    for name, _ in query.order_by:
        if name not in names:
            raise QueryError(f"ORDER BY names {name!r}, which is not an output column")

"""The parsed form of a query and a recursive-descent parser producing it."""

import re
from dataclasses import dataclass, field

from evq.expressions import SCALAR_FUNCTIONS, Arith, Call, Literal, Negate, Path, paths_in
from evq.lexer import QueryError, SyntaxFault, tokenize
from evq.paths import NAME
from evq.values import number_from_text

AGGREGATES = ("count", "sum", "avg", "min", "max", "distinct")
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "~")
RESERVED = {
    "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "ASC", "DESC", "LIMIT", "AS",
    "AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "JOIN", "INNER", "LEFT", "ON", "IN",
}
ALIAS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class Column:
    name: str
    expr: object = None  # the value of a non-aggregate column
    function: str = None  # an aggregate column: count | sum | ...
    argument: object = None  # the aggregate's expression; None for count(*)
    text: str = ""  # how a plain path column was written ("" for other expressions)


@dataclass
class Compare:
    left: object
    op: str
    right: object


@dataclass
class IsNull:
    expr: object
    negated: bool


@dataclass
class In:
    expr: object
    values: list
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
    group_by: list = field(default_factory=list)  # [(name, expression)]
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

    @property
    def following(self):
        return self.tokens[min(self.index + 1, len(self.tokens) - 1)]

    def advance(self):
        token = self.current
        self.index += 1
        return token

    def fail(self, reason):
        raise SyntaxFault(self.current.position, reason)

    def at_keyword(self, *words):
        return self.current.keyword in words

    def at_symbol(self, *symbols):
        return self.current.kind == "symbol" and self.current.text in symbols

    def accept_keyword(self, word):
        if self.current.keyword == word:
            return self.advance()
        return None

    def expect_keyword(self, word):
        if not self.accept_keyword(word):
            self.fail(f"expected {word}")

    def accept_symbol(self, symbol):
        if self.at_symbol(symbol):
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

    def name(self, what):
        token = self.current
        if token.kind != "word" or token.keyword in RESERVED or not ALIAS.match(token.text):
            self.fail(f"expected {what}")
        return self.advance().text

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
            query.group_by = self.comma_list(self.group_key)
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
        if token.kind == "word" and token.text.lower() in AGGREGATES and self.following.text == "(":
            column = self.aggregate()
        else:
            expr = self.expression()
            text = expr.text if isinstance(expr, Path) else ""
            column = Column(name=text, expr=expr, text=text)
        if self.accept_keyword("AS"):
            column.name = self.name("a column name")
        elif not column.name:
            raise QueryError(f"the column at position {token.position} needs a name: add AS NAME")
        return column

    def aggregate(self):
        start = self.current
        name = self.advance().text.lower()
        self.expect_symbol("(")
        if name == "count" and self.accept_symbol("*"):
            self.expect_symbol(")")
            return Column(name="count(*)", function="count")
        argument = self.expression()
        self.expect_symbol(")")
        named = f"{name}({argument.text})" if isinstance(argument, Path) else ""
        if not named and not self.at_keyword("AS"):
            raise QueryError(f"the column at position {start.position} needs a name: add AS NAME")
        return Column(name=named, function=name, argument=argument)

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
        return self.name("an alias")

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

    # Conditions.

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
        if not self.at_symbol("("):
            return self.predicate()
        # A parenthesis opens either a condition or an arithmetic operand: try the condition first,
        # and when both readings fail, report the one that got further.
        start = self.index
        first = None
        try:
            self.advance()
            inner = self.condition()
            self.expect_symbol(")")
            if not self.at_operator():
                return inner
        except SyntaxFault as fault:
            first = fault
        self.index = start
        try:
            return self.predicate()
        except SyntaxFault as fault:
            if first is not None and first.position > fault.position:
                raise first from None
            raise

    def at_operator(self):
        return self.at_symbol(*OPERATORS, "+", "-", "*", "/") or self.at_keyword("IS", "IN", "NOT")

    def predicate(self):
        left = self.expression("a condition")
        if self.accept_keyword("IS"):
            negated = bool(self.accept_keyword("NOT"))
            self.expect_keyword("NULL")
            return IsNull(left, negated)
        negated = bool(self.accept_keyword("NOT"))
        if negated or self.at_keyword("IN"):
            self.expect_keyword("IN")
            self.expect_symbol("(")
            values = self.comma_list(self.literal)
            self.expect_symbol(")")
            return In(left, values, negated)
        token = self.current
        if token.kind != "symbol" or token.text not in OPERATORS:
            self.fail("expected a comparison operator")
        self.advance()
        return Compare(left, token.text, self.expression())

    # Expressions.

    def expression(self, what="an expression"):
        left = self.term(what)
        while self.at_symbol("+", "-"):
            op = self.advance().text
            left = Arith(op, left, self.term())
        return left

    def term(self, what="an expression"):
        left = self.unary(what)
        while self.at_symbol("*", "/"):
            op = self.advance().text
            left = Arith(op, left, self.unary())
        return left

    def unary(self, what="an expression"):
        if self.accept_symbol("-"):
            operand = self.unary()
            if isinstance(operand, Literal) and not isinstance(operand.value, bool) and operand.value is not None:
                return Literal(-operand.value)
            return Negate(operand)
        return self.primary(what)

    def primary(self, what):
        token = self.current
        if self.accept_symbol("("):
            inner = self.expression()
            self.expect_symbol(")")
            return inner
        if token.kind in ("number", "string") or token.keyword in ("TRUE", "FALSE", "NULL"):
            return Literal(self.literal())
        if token.kind == "word" and self.following.text == "(" and self.following.kind == "symbol":
            return self.call()
        text, parts = self.path(what)
        return Path(parts, text)

    def call(self):
        token = self.current
        name = token.text.lower()
        if name not in SCALAR_FUNCTIONS:
            self.fail(f"unknown function {token.text!r}")
        self.advance()
        self.expect_symbol("(")
        args = self.comma_list(self.expression)
        self.expect_symbol(")")
        wanted = SCALAR_FUNCTIONS[name]
        if wanted is not None and len(args) != wanted:
            raise SyntaxFault(token.position, f"{name} takes {wanted} argument")
        return Call(name, args)

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
        if self.at_symbol("-") and self.following.kind == "number":
            self.advance()
            return -number_from_text(self.advance().text)
        self.fail("expected a literal")

    def group_key(self):
        text, parts = self.path("a field path or a column name")
        return text, Path(parts, text)

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
    resolve_group_aliases(query)
    check(query)
    return query


def resolve_group_aliases(query):
    """A GROUP BY name that names a non-aggregate column groups by that column's value."""
    named = {column.name: column for column in query.columns if column.expr is not None}
    query.group_by = [
        (name, named[name].expr if name in named else expr) for name, expr in query.group_by
    ]


def condition_paths(condition):
    if isinstance(condition, Compare):
        return paths_in(condition.left) + paths_in(condition.right)
    if isinstance(condition, (IsNull, In)):
        return paths_in(condition.expr)
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
    paths = []
    for column in query.columns:
        for expr in (column.expr, column.argument):
            if expr is not None:
                paths += paths_in(expr)
    paths += condition_paths(query.where)
    paths += [parts for _, expr in query.group_by for parts in paths_in(expr)]
    if not query.columns:
        paths += [tuple(name.split(".")) for name, _ in query.order_by]
    for path in paths:
        if path[0] not in seen:
            raise QueryError(f"unknown alias {path[0]!r}")


def grouped_by(query, column):
    """The position in GROUP BY of a non-aggregate column: its path written the same way, or its name."""
    for index, (name, _) in enumerate(query.group_by):
        if name in (column.text, column.name):
            return index
    return None


def check(query):
    """Rules about the query as a whole, beyond its grammar."""
    if query.alias is not None:
        check_aliases(query)
    names = {column.name for column in query.columns}
    if query.grouped:
        if not query.columns:
            raise QueryError("column '*' cannot be used with aggregates or GROUP BY")
        for column in query.columns:
            if not column.function and grouped_by(query, column) is None:
                raise QueryError(f"column {column.name!r} must appear in GROUP BY or be an aggregate")
    for name, _ in query.order_by:
        if query.columns and name not in names:
            raise QueryError(f"ORDER BY names {name!r}, which is not an output column")

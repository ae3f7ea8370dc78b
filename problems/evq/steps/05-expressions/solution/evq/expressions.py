"""Expressions on rows: paths, literals, arithmetic and scalar functions."""

from dataclasses import dataclass

from evq.paths import MISSING, resolve
from evq.values import is_number

SCALAR_FUNCTIONS = {"lower": 1, "upper": 1, "length": 1, "coalesce": None}


@dataclass
class Path:
    parts: tuple
    text: str


@dataclass
class Literal:
    value: object


@dataclass
class Call:
    name: str
    args: list


@dataclass
class Arith:
    op: str  # + - * /
    left: object
    right: object


@dataclass
class Negate:
    operand: object


def present(value):
    return value is not MISSING and value is not None


def call(name, values):
    if name == "coalesce":
        return next((value for value in values if present(value)), None)
    (value,) = values
    if name == "length":
        return len(value) if isinstance(value, (str, list)) else None
    if not isinstance(value, str):
        return None
    return value.lower() if name == "lower" else value.upper()


def arith(op, left, right):
    if not (is_number(left) and is_number(right)):
        return None
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    return left / right if right != 0 else None


def evaluate(expr, row):
    """The value of `expr` on `row`; MISSING only for a path that is missing."""
    if isinstance(expr, Path):
        return resolve(row, expr.parts)
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, Negate):
        value = evaluate(expr.operand, row)
        return -value if is_number(value) else None
    if isinstance(expr, Arith):
        return arith(expr.op, evaluate(expr.left, row), evaluate(expr.right, row))
    return call(expr.name, [evaluate(arg, row) for arg in expr.args])


def paths_in(expr):
    if isinstance(expr, Path):
        return [expr.parts]
    if isinstance(expr, Negate):
        return paths_in(expr.operand)
    if isinstance(expr, Arith):
        return paths_in(expr.left) + paths_in(expr.right)
    if isinstance(expr, Call):
        return [parts for arg in expr.args for parts in paths_in(arg)]
    return []

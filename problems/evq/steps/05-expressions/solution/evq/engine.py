"""Running a parsed query: scan, join, filter, group, project, order and limit."""

from evq.aggregates import FUNCTIONS, group
from evq.conditions import compare
from evq.events import read_events
from evq.expressions import evaluate, present
from evq.paths import MISSING, NAME, resolve
from evq.query import Compare, In, IsNull, Logical, Not, grouped_by
from evq.values import canonical, equal, sort_key


def holds(condition, row):
    if isinstance(condition, Compare):
        left = evaluate(condition.left, row)
        right = evaluate(condition.right, row)
        return left is not MISSING and right is not MISSING and compare(condition.op, left, right)
    if isinstance(condition, IsNull):
        empty = not present(evaluate(condition.expr, row))
        return not empty if condition.negated else empty
    if isinstance(condition, In):
        value = evaluate(condition.expr, row)
        if value is MISSING:
            return False
        found = any(equal(value, item) for item in condition.values)
        return not found if condition.negated else found
    if isinstance(condition, Not):
        return not holds(condition.operand, row)
    if condition.op == "AND":
        return all(holds(operand, row) for operand in condition.operands)
    return any(holds(operand, row) for operand in condition.operands)


def aggregate(column, rows):
    if column.argument is None:
        return len(rows)
    return FUNCTIONS[column.function]([evaluate(column.argument, row) for row in rows])


def value_of(expr, row):
    value = evaluate(expr, row)
    return None if value is MISSING else value


def project(query, rows):
    if not query.columns:
        return rows
    return [{column.name: value_of(column.expr, row) for column in query.columns} for row in rows]


def summarize(query, rows):
    keys = [lambda row, expr=expr: value_of(expr, row) for _, expr in query.group_by]
    result = []
    for values, members in group(rows, keys):
        out = {}
        for column in query.columns:
            if column.function:
                out[column.name] = aggregate(column, members)
            else:
                out[column.name] = values[grouped_by(query, column)]
        result.append(out)
    return result


def order_value(row, name, by_path):
    if not by_path:
        return row.get(name)
    if not NAME.match(name):
        return None
    value = resolve(row, tuple(name.split(".")))
    return None if value is MISSING else value


def order(query, rows):
    by_path = not query.columns
    # Python's sort is stable, so sorting by the last key first leaves ties in their earlier order.
    for name, descending in reversed(query.order_by):
        rows = sorted(rows, key=lambda row: sort_key(order_value(row, name, by_path)), reverse=descending)
    return rows


def join(rows, join, events):
    """Each row combined with the events of the joined source whose ON values are equal."""
    first, second = join.on
    mine, theirs = (first, second) if first[0] == join.alias else (second, first)
    index = {}
    for event in events:
        value = resolve({join.alias: event}, mine)
        if present(value):
            index.setdefault(canonical(value), []).append(event)
    combined = []
    for row in rows:
        value = resolve(row, theirs)
        matches = index.get(canonical(value), []) if present(value) else []
        for event in matches:
            combined.append({**row, join.alias: event})
        if not matches and join.left:
            combined.append({**row, join.alias: None})
    return combined


def scan(query, read):
    rows = read(query.source)
    if query.alias is None:
        return rows
    rows = [{query.alias: event} for event in rows]
    for step in query.joins:
        rows = join(rows, step, read(step.source))
    return rows


def run(query, read=read_events):
    rows = scan(query, read)
    if query.where is not None:
        rows = [row for row in rows if holds(query.where, row)]
    rows = summarize(query, rows) if query.grouped else project(query, rows)
    rows = order(query, rows)
    if query.limit is not None:
        rows = rows[: query.limit]
    return rows

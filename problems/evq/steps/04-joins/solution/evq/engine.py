"""Running a parsed query: scan, filter, group, project, order and limit."""

from evq.aggregates import FUNCTIONS, group
from evq.conditions import compare
from evq.events import read_events
from evq.paths import MISSING, NAME, resolve
from evq.query import Compare, IsNull, Logical, Not
from evq.values import canonical, sort_key


def holds(condition, row):
    if isinstance(condition, Compare):
        actual = resolve(row, condition.path)
        return actual is not MISSING and compare(condition.op, actual, condition.value)
    if isinstance(condition, IsNull):
        actual = resolve(row, condition.path)
        empty = actual is MISSING or actual is None
        return not empty if condition.negated else empty
    if isinstance(condition, Not):
        return not holds(condition.operand, row)
    if condition.op == "AND":
        return all(holds(operand, row) for operand in condition.operands)
    return any(holds(operand, row) for operand in condition.operands)


def count_present(events, path):
    values = (resolve(event, path) for event in events)
    return sum(1 for value in values if value is not MISSING and value is not None)


def aggregate(column, events):
    if column.function == "count":
        return len(events) if column.argument is None else count_present(events, column.argument)
    return FUNCTIONS[column.function](events, column.argument)


def value_of(row, path):
    value = resolve(row, path)
    return None if value is MISSING else value


def project(query, rows):
    if not query.columns:
        return rows
    return [{column.name: value_of(row, column.path) for column in query.columns} for row in rows]


def summarize(query, rows):
    paths = [path for _, path in query.group_by]
    positions = {text: index for index, (text, _) in enumerate(query.group_by)}
    result = []
    for values, members in group(rows, paths):
        out = {}
        for column in query.columns:
            if column.function:
                out[column.name] = aggregate(column, members)
            else:
                out[column.name] = values[positions[column.text]]
        result.append(out)
    return result


def order_value(row, name, by_path):
    if not by_path:
        return row.get(name)
    if not NAME.match(name):
        return None
    return value_of(row, tuple(name.split(".")))


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
        if value is not MISSING and value is not None:
            index.setdefault(canonical(value), []).append(event)
    combined = []
    for row in rows:
        value = resolve(row, theirs)
        matches = [] if value is MISSING or value is None else index.get(canonical(value), [])
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

"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import json
import sys

from evq.aggregates import AggregateError, parse_aggregate, stats
from evq.conditions import ConditionError, parse_where
from evq.engine import run
from evq.events import DataError, read_events
from evq.lexer import QueryError
from evq.paths import MISSING, PathError, parse_path, resolve
from evq.query import parse_query


def field_list(text):
    names = [name.strip() for name in text.split(",")]
    if not text.strip() or any(not name for name in names):
        raise argparse.ArgumentTypeError("--fields needs a comma-separated list of field paths")
    try:
        return [(name, parse_path(name)) for name in names]
    except PathError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser():
    parser = argparse.ArgumentParser(prog="evq")
    commands = parser.add_subparsers(dest="command", required=True)
    query = commands.add_parser("query")
    query.add_argument("query", metavar="QUERY")
    for name in ("filter", "count", "stats"):
        command = commands.add_parser(name)
        command.add_argument("files", nargs="+", metavar="FILE")
        command.add_argument("--where", action="append", default=[], metavar="EXPR")
        if name == "filter":
            command.add_argument("--fields", type=field_list, metavar="LIST")
        if name == "stats":
            command.add_argument("--group-by", action="append", default=[], metavar="PATH")
            command.add_argument("--agg", action="append", default=[], metavar="SPEC")
    return parser


def project(event, fields):
    if fields is None:
        return event
    values = ((name, resolve(event, path)) for name, path in fields)
    return {name: None if value is MISSING else value for name, value in values}


def emit(rows):
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))


def report(error):
    print(f"error: {error}", file=sys.stderr)
    return 1


def read_all(paths):
    events = []
    for path in paths:
        try:
            events.extend(read_events(path))
        except OSError as error:
            raise DataError(f"cannot read {path}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise DataError(f"{path}: not UTF-8 text") from None
    return events


def main_query(parser, text):
    try:
        query = parse_query(text)
    except QueryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        rows = run(query, lambda path: read_all([path]))
    except DataError as error:
        return report(error)
    emit(rows)
    return 0


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "query":
        return main_query(parser, args.query)
    try:
        conditions = [parse_where(text) for text in args.where]
        if args.command == "stats":
            group_paths = [(text, parse_path(text)) for text in args.group_by]
            aggregates = [parse_aggregate(text) for text in args.agg or ["count"]]
    except (ConditionError, AggregateError, PathError) as error:
        parser.error(str(error))
    try:
        events = read_all(args.files)
    except DataError as error:
        return report(error)
    matching = [event for event in events if all(holds(event) for holds in conditions)]
    if args.command == "count":
        print(json.dumps({"count": len(matching)}))
    elif args.command == "stats":
        emit(stats(matching, group_paths, aggregates))
    else:
        emit(project(event, args.fields) for event in matching)
    return 0

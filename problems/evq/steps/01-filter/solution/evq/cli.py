"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import json
import sys

from evq.conditions import ConditionError, parse_where
from evq.events import DataError, read_events


def field_list(text):
    names = [name.strip() for name in text.split(",")]
    if not text.strip() or any(not name for name in names):
        raise argparse.ArgumentTypeError("--fields needs a comma-separated list of names")
    return names


def build_parser():
    parser = argparse.ArgumentParser(prog="evq")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("filter", "count"):
        command = commands.add_parser(name)
        command.add_argument("file", metavar="FILE")
        command.add_argument("--where", action="append", default=[], metavar="EXPR")
        if name == "filter":
            command.add_argument("--fields", type=field_list, metavar="LIST")
    return parser


def project(event, fields):
    if fields is None:
        return event
    return {name: event.get(name) for name in fields}


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        conditions = [parse_where(text) for text in args.where]
    except ConditionError as error:
        parser.error(str(error))
    try:
        events = read_events(args.file)
    except OSError as error:
        print(f"error: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 1
    except (DataError, UnicodeDecodeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    matching = [event for event in events if all(holds(event) for holds in conditions)]
    if args.command == "count":
        print(json.dumps({"count": len(matching)}))
    else:
        for event in matching:
            print(json.dumps(project(event, args.fields), ensure_ascii=False))
    return 0

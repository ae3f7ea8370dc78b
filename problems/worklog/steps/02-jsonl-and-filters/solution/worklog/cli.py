"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import json
import sys

from worklog.entries import DataError
from worklog.filters import FilterError, parse_where
from worklog.readers import read_entries
from worklog.summary import GROUP_KEYS, summarize


def build_parser():
    parser = argparse.ArgumentParser(prog="worklog")
    commands = parser.add_subparsers(dest="command", required=True)
    summary = commands.add_parser("summary", help="summarize work logs")
    summary.add_argument("files", nargs="+", metavar="FILE")
    summary.add_argument("--by", choices=sorted(GROUP_KEYS), default="project")
    summary.add_argument("--where", action="append", default=[], metavar="EXPR")
    return parser


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        filters = [parse_where(text) for text in args.where]
    except FilterError as error:
        parser.error(str(error))
    try:
        entries = read_entries(args.files)
    except OSError as error:
        print(f"error: cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 1
    except DataError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    kept = [entry for entry in entries if all(keep(entry) for keep in filters)]
    print(json.dumps(summarize(kept, args.by)))
    return 0

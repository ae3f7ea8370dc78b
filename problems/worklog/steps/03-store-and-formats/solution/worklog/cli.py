"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import json
import sys

from worklog import store
from worklog.entries import DataError
from worklog.filters import FilterError, parse_where
from worklog.readers import read_entries
from worklog.render import RENDERERS, export_csv
from worklog.summary import GROUP_KEYS, summarize


class Failure(Exception):
    """An error that ends the command with exit code 1."""


def build_parser():
    parser = argparse.ArgumentParser(prog="worklog")
    commands = parser.add_subparsers(dest="command", required=True)

    imports = commands.add_parser("import", help="add entries to a store")
    imports.add_argument("files", nargs="+", metavar="FILE")
    imports.add_argument("--db", required=True, metavar="PATH")

    summary = commands.add_parser("summary", help="summarize work logs")
    summary.add_argument("files", nargs="*", metavar="FILE")
    summary.add_argument("--db", metavar="PATH")
    summary.add_argument("--by", choices=sorted(GROUP_KEYS), default="project")
    summary.add_argument("--where", action="append", default=[], metavar="EXPR")
    summary.add_argument("--format", choices=sorted(RENDERERS), default="json")

    export = commands.add_parser("export", help="write stored entries as CSV")
    export.add_argument("--db", required=True, metavar="PATH")
    export.add_argument("--out", required=True, metavar="FILE")
    export.add_argument("--where", action="append", default=[], metavar="EXPR")
    return parser


def read_files(paths):
    try:
        return read_entries(paths)
    except OSError as error:
        raise Failure(f"cannot read {error.filename}: {error.strerror}") from None
    except DataError as error:
        raise Failure(str(error)) from None


def load_store(path):
    try:
        return store.load(path)
    except store.StoreError as error:
        raise Failure(str(error)) from None


def keep(entries, filters):
    return [entry for entry in entries if all(matches(entry) for matches in filters)]


def run_import(args, _filters):
    entries = read_files(args.files)
    try:
        imported, skipped, total = store.add(args.db, entries)
    except store.StoreError as error:
        raise Failure(str(error)) from None
    print(json.dumps({"imported": imported, "skipped": skipped, "total": total}))


def run_summary(args, filters):
    entries = load_store(args.db) if args.db else []
    entries += read_files(args.files)
    sys.stdout.write(RENDERERS[args.format](summarize(keep(entries, filters), args.by)))


def run_export(args, filters):
    entries = keep(load_store(args.db), filters)
    try:
        with open(args.out, "w", encoding="utf-8", newline="") as handle:
            handle.write(export_csv(entries))
    except OSError as error:
        raise Failure(f"cannot write {args.out}: {error.strerror}") from None
    print(json.dumps({"exported": len(entries)}))


COMMANDS = {"import": run_import, "summary": run_summary, "export": run_export}


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "summary" and not args.files and not args.db:
        parser.error("summary needs a FILE or --db PATH")
    try:
        filters = [parse_where(text) for text in getattr(args, "where", [])]
    except FilterError as error:
        parser.error(str(error))
    try:
        COMMANDS[args.command](args, filters)
    except Failure as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0

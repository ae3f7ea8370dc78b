"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import json
import sys

from worklog import budget, store
from worklog.entries import DataError
from worklog.filters import FilterError, parse_where
from worklog.readers import read_entries
from worklog.render import RENDERERS, REPORT_RENDERERS, export_csv
from worklog.summary import GROUP_KEYS, summarize


# A report with a project over its budget still prints in full, then ends with this code.
OVER_BUDGET = 3


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

    budgets = commands.add_parser("budget", help="set, remove or list monthly budgets")
    actions = budgets.add_subparsers(dest="action", required=True)
    set_budget = actions.add_parser("set", help="set the monthly budget of a project")
    set_budget.add_argument("project", metavar="PROJECT")
    set_budget.add_argument("hours", metavar="HOURS")
    set_budget.add_argument("--db", required=True, metavar="PATH")
    unset_budget = actions.add_parser("unset", help="remove the budget of a project")
    unset_budget.add_argument("project", metavar="PROJECT")
    unset_budget.add_argument("--db", required=True, metavar="PATH")
    list_budgets = actions.add_parser("list", help="list the budgets")
    list_budgets.add_argument("--db", required=True, metavar="PATH")

    report = commands.add_parser("report", help="time spent in a month against the budgets")
    report.add_argument("--db", required=True, metavar="PATH")
    report.add_argument("--month", required=True, metavar="YYYY-MM")
    report.add_argument("--format", choices=sorted(REPORT_RENDERERS), default="json")
    return parser


def check_arguments(parser, args):
    """Command-line errors that argparse cannot see; they exit with code 2 before anything is read."""
    if args.command == "summary" and not args.files and not args.db:
        parser.error("summary needs a FILE or --db PATH")
    if args.command == "budget" and args.action in ("set", "unset"):
        args.project = args.project.strip()
        if not args.project:
            parser.error("PROJECT must not be empty")
    if args.command == "budget" and args.action == "set":
        args.minutes = budget.parse_hours(args.hours)
        if args.minutes is None:
            parser.error(f"invalid HOURS {args.hours!r} (expected a number greater than zero with at most one decimal)")
    if args.command == "report" and not budget.is_month(args.month):
        parser.error(f"invalid --month {args.month!r} (expected YYYY-MM)")


def read_files(paths):
    try:
        return read_entries(paths)
    except OSError as error:
        raise Failure(f"cannot read {error.filename}: {error.strerror}") from None
    except DataError as error:
        raise Failure(str(error)) from None


def in_store(change, *arguments):
    """Runs a store operation, turning its errors into failures."""
    try:
        return change(*arguments)
    except store.StoreError as error:
        raise Failure(str(error)) from None


def load_store(path):
    return in_store(store.load, path)


def keep(entries, filters):
    return [entry for entry in entries if all(matches(entry) for matches in filters)]


def run_import(args, _filters):
    imported, skipped, total = in_store(store.add, args.db, read_files(args.files))
    print(json.dumps({"imported": imported, "skipped": skipped, "total": total}))


def run_summary(args, filters):
    entries = load_store(args.db).entries if args.db else []
    entries += read_files(args.files)
    sys.stdout.write(RENDERERS[args.format](summarize(keep(entries, filters), args.by)))


def run_export(args, filters):
    entries = keep(load_store(args.db).entries, filters)
    try:
        with open(args.out, "w", encoding="utf-8", newline="") as handle:
            handle.write(export_csv(entries))
    except OSError as error:
        raise Failure(f"cannot write {args.out}: {error.strerror}") from None
    print(json.dumps({"exported": len(entries)}))


def run_budget(args, _filters):
    if args.action == "set":
        in_store(store.set_budget, args.db, args.project, args.minutes)
        print(json.dumps({"project": args.project, "budget_minutes": args.minutes}))
    elif args.action == "unset":
        in_store(store.unset_budget, args.db, args.project)
        print(json.dumps({"project": args.project, "budget_minutes": None}))
    else:
        print(json.dumps(dict(sorted(load_store(args.db).budgets.items()))))


def run_report(args, _filters):
    contents = load_store(args.db)
    result = budget.report(contents.entries, contents.budgets, args.month)
    sys.stdout.write(REPORT_RENDERERS[args.format](result))
    return OVER_BUDGET if result["over_budget"] else 0


COMMANDS = {
    "import": run_import,
    "summary": run_summary,
    "export": run_export,
    "budget": run_budget,
    "report": run_report,
}


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    try:
        filters = [parse_where(text) for text in getattr(args, "where", [])]
    except FilterError as error:
        parser.error(str(error))
    try:
        return COMMANDS[args.command](args, filters) or 0
    except Failure as error:
        print(f"error: {error}", file=sys.stderr)
        return 1

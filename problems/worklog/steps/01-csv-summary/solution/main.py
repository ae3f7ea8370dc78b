"""worklog: summarize a CSV work log."""

import argparse
import csv
import datetime
import json
import re
import sys

REQUIRED_COLUMNS = ("date", "project", "minutes")
MINUTES_PATTERN = re.compile(r"[0-9]+")
DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DataError(Exception):
    """Invalid content in an input file, with the line at fault."""

    def __init__(self, path, line, message):
        super().__init__(f"{path}: line {line}: {message}")


def parse_date(text):
    if not DATE_PATTERN.fullmatch(text):
        return None
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return None
    return text


def parse_row(path, line, row):
    date = parse_date(row["date"])
    if date is None:
        raise DataError(path, line, f"invalid date {row['date']!r} (expected YYYY-MM-DD)")
    project = row["project"].strip()
    if not project:
        raise DataError(path, line, "project is empty")
    minutes_text = row["minutes"]
    if not MINUTES_PATTERN.fullmatch(minutes_text) or int(minutes_text) <= 0:
        raise DataError(path, line, "minutes must be a whole number greater than zero")
    return {"date": date, "project": project, "minutes": int(minutes_text)}


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise DataError(path, 1, "missing header")
        missing = [name for name in REQUIRED_COLUMNS if name not in header]
        if missing:
            raise DataError(path, 1, f"header lacks column {missing[0]!r}")
        entries = []
        for fields in reader:
            if not fields:
                continue
            if len(fields) != len(header):
                raise DataError(path, reader.line_num, f"expected {len(header)} fields, found {len(fields)}")
            entries.append(parse_row(path, reader.line_num, dict(zip(header, fields))))
        return entries


def summarize(entries, by):
    groups = {}
    for entry in entries:
        group = groups.setdefault(entry[by], {"key": entry[by], "minutes": 0, "entries": 0})
        group["minutes"] += entry["minutes"]
        group["entries"] += 1
    return {
        "total_minutes": sum(entry["minutes"] for entry in entries),
        "entries": len(entries),
        "groups": [groups[key] for key in sorted(groups)],
    }


def build_parser():
    parser = argparse.ArgumentParser(prog="worklog")
    commands = parser.add_subparsers(dest="command", required=True)
    summary = commands.add_parser("summary", help="summarize a work log")
    summary.add_argument("file")
    summary.add_argument("--by", choices=["project", "date"], default="project")
    return parser


def main(argv):
    args = build_parser().parse_args(argv)
    try:
        entries = read_csv(args.file)
    except OSError as error:
        print(f"error: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 1
    except DataError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summarize(entries, args.by)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

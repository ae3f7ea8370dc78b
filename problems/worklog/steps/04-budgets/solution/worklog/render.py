"""Output formats of the summary, and the CSV export."""

import csv
import io
import json


def render_json(summary):
    return json.dumps(summary) + "\n"


def render_jsonl(summary):
    return "".join(json.dumps(group) + "\n" for group in summary["groups"])


def hours(minutes):
    return f"{minutes / 60:.2f}"


def align(rows, left=(0,)):
    """Rows of cells as text lines: the columns in left left-aligned, the others right-aligned."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.ljust(width) if column in left else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def render_table(summary):
    rows = [("KEY", "MINUTES", "HOURS", "ENTRIES")]
    for group in summary["groups"]:
        rows.append((group["key"], str(group["minutes"]), hours(group["minutes"]), str(group["entries"])))
    total = summary["total_minutes"]
    rows.append(("TOTAL", str(total), hours(total), str(summary["entries"])))
    return align(rows)


RENDERERS = {"json": render_json, "jsonl": render_jsonl, "table": render_table}


def status(row):
    if row["budget_minutes"] is None:
        return "-"
    return "OVER" if row["over"] else "ok"


def render_report_jsonl(report):
    return "".join(json.dumps(row) + "\n" for row in report["projects"])


def render_report_table(report):
    rows = [("PROJECT", "SPENT", "BUDGET", "LEFT", "STATUS")]
    for row in report["projects"]:
        budget = row["budget_minutes"]
        left = "-" if budget is None else hours(budget - row["spent_minutes"])
        rows.append(
            (row["project"], hours(row["spent_minutes"]), "-" if budget is None else hours(budget), left, status(row))
        )
    return align(rows, left=(0, 4))


REPORT_RENDERERS = {"json": render_json, "jsonl": render_report_jsonl, "table": render_report_table}


def export_csv(entries):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["date", "project", "minutes", "tags", "note"])
    rows = sorted((e.date, e.project, e.minutes, ";".join(e.tags), e.note) for e in entries)
    writer.writerows(rows)
    return out.getvalue()

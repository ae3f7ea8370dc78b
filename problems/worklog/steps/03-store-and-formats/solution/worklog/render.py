"""Output formats of the summary, and the CSV export."""

import csv
import io
import json


def render_json(summary):
    return json.dumps(summary) + "\n"


def render_jsonl(summary):
    return "".join(json.dumps(group) + "\n" for group in summary["groups"])


def render_table(summary):
    rows = [("KEY", "MINUTES", "HOURS", "ENTRIES")]
    for group in summary["groups"]:
        rows.append((group["key"], str(group["minutes"]), f"{group['minutes'] / 60:.2f}", str(group["entries"])))
    total = summary["total_minutes"]
    rows.append(("TOTAL", str(total), f"{total / 60:.2f}", str(summary["entries"])))
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


RENDERERS = {"json": render_json, "jsonl": render_jsonl, "table": render_table}


def export_csv(entries):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["date", "project", "minutes", "tags", "note"])
    rows = sorted((e.date, e.project, e.minutes, ";".join(e.tags), e.note) for e in entries)
    writer.writerows(rows)
    return out.getvalue()

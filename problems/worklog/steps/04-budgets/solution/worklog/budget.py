"""Monthly budgets: parsing budget amounts and comparing a month's entries against the budgets."""

import re

HOURS_PATTERN = re.compile(r"([0-9]+)(?:\.([0-9]))?")
MONTH_PATTERN = re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])")


def parse_hours(text):
    """Budget minutes for an amount of hours with at most one decimal, or None when invalid."""
    match = HOURS_PATTERN.fullmatch(text)
    if not match:
        return None
    minutes = int(match.group(1)) * 60 + int(match.group(2) or 0) * 6
    return minutes or None


def is_month(text):
    return bool(MONTH_PATTERN.fullmatch(text))


def report(entries, budgets, month):
    """One row per project with a budget or with entries in the month, sorted by project."""
    spent = {}
    for entry in entries:
        if entry.month == month:
            spent[entry.project] = spent.get(entry.project, 0) + entry.minutes
    rows = []
    for project in sorted(set(spent) | set(budgets)):
        budget = budgets.get(project)
        used = spent.get(project, 0)
        rows.append(
            {
                "project": project,
                "spent_minutes": used,
                "budget_minutes": budget,
                "over": budget is not None and used > budget,
            }
        )
    return {"month": month, "projects": rows, "over_budget": [row["project"] for row in rows if row["over"]]}

"""Grouping entries into the summary object."""

UNTAGGED = "(untagged)"

GROUP_KEYS = {
    "project": lambda entry: [entry.project],
    "date": lambda entry: [entry.date],
    "month": lambda entry: [entry.month],
    "tag": lambda entry: list(entry.tags) or [UNTAGGED],
}


def summarize(entries, by):
    groups = {}
    for entry in entries:
        for key in GROUP_KEYS[by](entry):
            group = groups.setdefault(key, {"key": key, "minutes": 0, "entries": 0})
            group["minutes"] += entry.minutes
            group["entries"] += 1
    return {
        "total_minutes": sum(entry.minutes for entry in entries),
        "entries": len(entries),
        "groups": [groups[key] for key in sorted(groups)],
    }

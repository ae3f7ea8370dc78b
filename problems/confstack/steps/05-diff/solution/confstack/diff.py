"""Differences between two configurations, and their text and JSON renderings."""

import json

from confstack.paths import format_path


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def shown(value):
    """Compact JSON keeping the table's own member order, for display."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def differences(old, new, path=()):
    """[(path parts, change, old, new)] for two tables, unsorted."""
    found = []
    for name in old.keys() | new.keys():
        here = path + (("name", name),)
        if name not in new:
            found.append((here, "removed", old[name], None))
        elif name not in old:
            found.append((here, "added", None, new[name]))
        elif isinstance(old[name], dict) and isinstance(new[name], dict):
            found.extend(differences(old[name], new[name], here))
        elif compact(old[name]) != compact(new[name]):
            found.append((here, "changed", old[name], new[name]))
    return found


def sorted_differences(old, new):
    listed = [(format_path(path), change, before, after) for path, change, before, after in differences(old, new)]
    return sorted(listed, key=lambda item: item[0])


def render_text(listed):
    lines = []
    for path, change, before, after in listed:
        if change == "added":
            lines.append(f"+ {path} = {shown(after)}")
        elif change == "removed":
            lines.append(f"- {path} = {shown(before)}")
        else:
            lines.append(f"~ {path}: {shown(before)} -> {shown(after)}")
    return lines


def render_json(listed):
    items = []
    for path, change, before, after in listed:
        item = {"path": path, "change": change}
        if change != "added":
            item["old"] = before
        if change != "removed":
            item["new"] = after
        items.append(item)
    return json.dumps(items, ensure_ascii=False)

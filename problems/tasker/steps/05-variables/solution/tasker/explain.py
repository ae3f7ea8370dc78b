"""Why a task must run, or None when it is up to date: one decision for real runs and dry runs."""

import os

from tasker.state import digest


def first_changed(pairs):
    for path, recorded in pairs:
        if digest(path) != recorded:
            return path
    return None


def reason(task, record, force=False, rebuilt=()):
    """The first applicable reason for `task` to run; `rebuilt` holds the tracked tasks that run."""
    if force:
        return "forced"
    if not task.tracked:
        return "no inputs or outputs"
    if record is None:
        return "never ran"
    if record.get("commands") != task.commands:
        return "commands changed"
    inputs, outputs = record.get("inputs", []), record.get("outputs", [])
    if [path for path, _ in inputs] != task.inputs or [path for path, _ in outputs] != task.outputs:
        return "files changed"
    for dep in task.deps:
        if dep in rebuilt:
            return f"dependency runs: {dep}"
    for path in task.inputs:
        if not os.path.exists(path):
            return f"input missing: {path}"
    changed = first_changed(inputs)
    if changed:
        return f"input changed: {changed}"
    changed = first_changed(outputs)
    if changed:
        return f"output changed: {changed}"
    return None


def dry_run(tasks, names, state, force=False):
    """One line per task: `NAME: up to date` or `NAME: run (REASON)`."""
    running = set()
    lines = []
    for name in names:
        task = tasks[name]
        why = reason(task, state.record_of(name), force, running)
        if why is None:
            lines.append(f"{name}: up to date")
            continue
        lines.append(f"{name}: run ({why})")
        if task.tracked:
            running.add(name)
    return lines

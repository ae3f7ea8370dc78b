"""Removing the declared outputs of tasks and forgetting their recorded runs."""

import os


def clean(tasks, names, state):
    """The paths removed, in task order then declared order."""
    removed = []
    for name in names:
        task = tasks[name]
        for path in task.outputs:
            if os.path.isfile(path) or os.path.islink(path):
                os.remove(path)
                removed.append(path)
        state.forget(task)
    return removed

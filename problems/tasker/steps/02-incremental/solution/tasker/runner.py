"""Running tasks' commands through the shell, skipping tasks that are up to date."""

import os
import subprocess
import sys

from tasker.model import TaskError


def run_command(command):
    """(exit code, standard output) of one command; its standard error passes through."""
    completed = subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.PIPE, stderr=sys.stderr)
    return completed.returncode, completed.stdout


def execute(task, out):
    """Runs a task's commands, checking its inputs before and its outputs after."""
    for path in task.inputs:
        if not os.path.exists(path):
            raise TaskError(f"task '{task.name}': missing input '{path}'")
    for command in task.commands:
        code, output = run_command(command)
        out.write(output)
        out.flush()
        if code != 0:
            raise TaskError(f"task '{task.name}' failed (exit {code})")
    for path in task.outputs:
        if not os.path.exists(path):
            raise TaskError(f"task '{task.name}': output '{path}' was not created")


def run_tasks(tasks, names, out, state, force=False):
    rebuilt = set()
    for name in names:
        task = tasks[name]
        stale_deps = any(dep in rebuilt for dep in task.deps)
        if not force and not stale_deps and state.up_to_date(task):
            out.write(f"== {name} (up to date)\n".encode())
            continue
        out.write(f"== {name}\n".encode())
        out.flush()
        try:
            execute(task, out)
        except TaskError:
            state.forget(task)
            raise
        if task.tracked:
            rebuilt.add(name)
            state.record(task)

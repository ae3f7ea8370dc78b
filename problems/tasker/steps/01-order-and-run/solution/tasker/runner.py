"""Running tasks' commands through the shell."""

import subprocess
import sys

from tasker.model import TaskError


def run_command(command):
    """(exit code, standard output) of one command; its standard error passes through."""
    completed = subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.PIPE, stderr=sys.stderr)
    return completed.returncode, completed.stdout


def run_tasks(tasks, names, out):
    for name in names:
        out.write(f"== {name}\n".encode())
        out.flush()
        for command in tasks[name].commands:
            code, output = run_command(command)
            out.write(output)
            out.flush()
            if code != 0:
                raise TaskError(f"task '{name}' failed (exit {code})")

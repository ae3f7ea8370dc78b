"""Running one task: its commands through the shell, with its inputs and outputs checked."""

import os
import subprocess
import sys


class TaskFailure(Exception):
    """A task that failed; `output` is what its commands printed before."""

    def __init__(self, message, output=b""):
        super().__init__(message)
        self.output = output


def run_command(command):
    """(exit code, standard output) of one command; its standard error passes through."""
    completed = subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.PIPE, stderr=sys.stderr)
    return completed.returncode, completed.stdout


def execute(task):
    """What the task's commands printed; raises TaskFailure when the task fails."""
    for path in task.inputs:
        if not os.path.exists(path):
            raise TaskFailure(f"task '{task.name}': missing input '{path}'")
    output = b""
    for command in task.commands:
        code, printed = run_command(command)
        output += printed
        if code != 0:
            raise TaskFailure(f"task '{task.name}' failed (exit {code})", output)
    for path in task.outputs:
        if not os.path.exists(path):
            raise TaskFailure(f"task '{task.name}': output '{path}' was not created", output)
    return output

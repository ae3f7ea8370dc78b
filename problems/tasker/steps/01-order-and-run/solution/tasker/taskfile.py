"""Reading the indented task-file format."""

import re

from tasker.model import Task, TaskError

NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def parse_header(line, number):
    name, colon, rest = line.partition(":")
    name = name.strip()
    deps = rest.split()
    if not colon or not NAME.match(name) or not all(NAME.match(dep) for dep in deps):
        raise TaskError(f"line {number}: expected 'NAME: DEPENDENCIES'")
    return Task(name=name, deps=deps)


def parse_taskfile(text):
    """The tasks of a task file, by name, in file order."""
    tasks = {}
    current = None
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line[0] in " \t":
            if current is None:
                raise TaskError(f"line {number}: a command before any task")
            current.commands.append(stripped)
            continue
        current = parse_header(line, number)
        if current.name in tasks:
            raise TaskError(f"line {number}: task '{current.name}' is defined twice")
        tasks[current.name] = current
    return tasks


def read_taskfile(path):
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise TaskError(f"cannot read {path}: {error.strerror}") from None
    try:
        return parse_taskfile(text)
    except TaskError as error:
        raise TaskError(f"{path}: {error}") from None

"""Reading the indented task-file format."""

from tasker.json_taskfile import parse_json_taskfile
from tasker.model import Task, TaskError
from tasker.names import NAME
from tasker.variables import VARIABLE


def parse_header(line, number):
    name, colon, rest = line.partition(":")
    name = name.strip()
    deps = rest.split()
    if not colon or not NAME.match(name) or not all(NAME.match(dep) for dep in deps):
        raise TaskError(f"line {number}: expected 'NAME: DEPENDENCIES'")
    return Task(name=name, deps=deps)


def add_line(task, text):
    """A command, or an @in / @out declaration of files."""
    if text.startswith("@in "):
        task.inputs.extend(text[4:].split())
    elif text.startswith("@out "):
        task.outputs.extend(text[5:].split())
    else:
        task.commands.append(text)


def parse_let(line, number, variables):
    name, equals, value = line[4:].partition("=")
    name = name.strip()
    if not equals or not VARIABLE.match(name) or name == "TASK":
        raise TaskError(f"line {number}: expected 'let NAME = VALUE'")
    if name in variables:
        raise TaskError(f"line {number}: variable '{name}' is defined twice")
    variables[name] = value.strip()


def parse_taskfile(text):
    """(tasks by name in file order, variable definitions in file order)."""
    tasks = {}
    variables = {}
    current = None
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line[0] in " \t":
            if current is None:
                raise TaskError(f"line {number}: a command before any task")
            add_line(current, stripped)
            continue
        if line.startswith("let "):
            parse_let(line, number, variables)
            current = None
            continue
        current = parse_header(line, number)
        if current.name in tasks:
            raise TaskError(f"line {number}: task '{current.name}' is defined twice")
        tasks[current.name] = current
    return tasks, variables


def read_taskfile(path):
    """(tasks, variable definitions) of a task file: JSON for `.json`, the text format otherwise."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise TaskError(f"cannot read {path}: {error.strerror}") from None
    parse = parse_json_taskfile if path.endswith(".json") else parse_taskfile
    try:
        return parse(text)
    except TaskError as error:
        raise TaskError(f"{path}: {error}") from None

"""Variables: ${NAME} in commands and paths, defined in the task file or with --var."""

import re

from tasker.model import TaskError

VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
REFERENCE = re.compile(r"\$\$|\$\{([^}]*)\}")


def expand(text, values):
    def replace(match):
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        if name not in values:
            raise TaskError(f"unknown variable '{name}'")
        return values[name]

    return REFERENCE.sub(replace, text)


def resolve(definitions, overrides):
    """Values of the file's variables (in file order, each seeing the earlier ones) and of --var."""
    values = dict(overrides)
    for name, raw in definitions.items():
        if name not in overrides:
            values[name] = expand(raw, values)
    return values


def apply(tasks, definitions, overrides):
    """Expands every task's commands, inputs and outputs, with TASK set to the task's name."""
    values = resolve(definitions, overrides)
    for task in tasks.values():
        scope = {**values, "TASK": task.name}
        try:
            task.commands = [expand(text, scope) for text in task.commands]
            task.inputs = [expand(path, scope) for path in task.inputs]
            task.outputs = [expand(path, scope) for path in task.outputs]
        except TaskError as error:
            raise TaskError(f"task '{task.name}': {error}") from None
    return tasks


def parse_override(text):
    name, equals, value = text.partition("=")
    if not equals or not VARIABLE.match(name) or name == "TASK":
        raise ValueError(f"expected NAME=VALUE, got {text!r}")
    return name, value

"""Reading task files written in JSON."""

import json

from tasker.model import Task, TaskError
from tasker.names import NAME
from tasker.variables import VARIABLE

MEMBERS = {"deps": "deps", "run": "commands", "inputs": "inputs", "outputs": "outputs"}


def string_list(value):
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def parse_task(name, body):
    if not NAME.match(name):
        raise TaskError(f"task '{name}': not a valid task name")
    if not isinstance(body, dict):
        raise TaskError(f"task '{name}': expected an object")
    task = Task(name=name)
    for key, value in body.items():
        if key not in MEMBERS:
            raise TaskError(f"task '{name}': unknown member '{key}'")
        if not string_list(value):
            raise TaskError(f"task '{name}': '{key}' must be a list of strings")
        setattr(task, MEMBERS[key], list(value))
    for dep in task.deps:
        if not NAME.match(dep):
            raise TaskError(f"task '{name}': '{dep}' is not a valid task name")
    return task


def parse_json_taskfile(text):
    try:
        document = json.loads(text)
    except ValueError as error:
        raise TaskError(f"not valid JSON: {error}") from None
    if not isinstance(document, dict):
        raise TaskError("expected a JSON object of tasks")
    variables = document.pop("$vars", {})
    if not isinstance(variables, dict) or not all(
        VARIABLE.match(name) and name != "TASK" and isinstance(value, str) for name, value in variables.items()
    ):
        raise TaskError("'$vars' must be an object of variable names and strings")
    return {name: parse_task(name, body) for name, body in document.items()}, variables

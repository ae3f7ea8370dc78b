"""The task model and the error every user-facing failure is reported with."""

from dataclasses import dataclass, field


class TaskError(Exception):
    """Something wrong with the task file, the targets or a run; exits with code 1."""


@dataclass
class Task:
    name: str
    deps: list = field(default_factory=list)
    commands: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)

    @property
    def tracked(self):
        """Whether the task declares files, and so can be up to date."""
        return bool(self.inputs or self.outputs)

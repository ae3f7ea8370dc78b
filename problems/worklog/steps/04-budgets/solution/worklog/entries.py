"""Work-log entries and the validation every input format shares."""

import dataclasses
import datetime
import re

DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DataError(Exception):
    """Invalid content in an input file, with the line at fault."""

    def __init__(self, path, line, message):
        super().__init__(f"{path}: line {line}: {message}")


@dataclasses.dataclass(frozen=True)
class Entry:
    date: str
    project: str
    minutes: int
    tags: tuple = ()
    note: str = ""

    @property
    def month(self):
        return self.date[:7]


def is_date(text):
    if not isinstance(text, str) or not DATE_PATTERN.fullmatch(text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def clean_tags(tags):
    """Tags without surrounding whitespace, empty ones dropped, each once, in a stable order."""
    return tuple(sorted({tag.strip() for tag in tags if tag.strip()}))


def make_entry(path, line, date, project, minutes, tags=(), note=""):
    if not is_date(date):
        raise DataError(path, line, f"invalid date {date!r} (expected YYYY-MM-DD)")
    if not isinstance(project, str) or not project.strip():
        raise DataError(path, line, "project must be a non-empty string")
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes <= 0:
        raise DataError(path, line, "minutes must be a whole number greater than zero")
    return Entry(date, project.strip(), minutes, clean_tags(tags), note)

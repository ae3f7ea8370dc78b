"""Reading INI files into {section: {key: value}}, with lower-case names."""

import re

from confstack.errors import ConfigError

NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def unquote(value):
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    return value


def parse_ini(text):
    sections = {}
    current = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip()
            if not NAME.match(name):
                raise ConfigError(f"line {number}: invalid section name {name!r}")
            current = sections.setdefault(name.lower(), {})
            continue
        key, equals, value = line.partition("=")
        key = key.strip()
        if not equals:
            raise ConfigError(f"line {number}: expected '[section]' or 'key = value'")
        if not NAME.match(key):
            raise ConfigError(f"line {number}: invalid key name {key!r}")
        if current is None:
            current = sections.setdefault("default", {})
        key = key.lower()
        if key in current:
            raise ConfigError(f"line {number}: duplicate key {key!r}")
        current[key] = unquote(value.strip())
    return sections

"""Layers from --set options and from environment variables."""

from confstack.paths import PathSyntaxError, parse_path
from confstack.toml import LineError, parse_value


def typed(text):
    """A TOML value when `text` is one, else the text itself."""
    try:
        return parse_value(text)
    except LineError:
        return text.strip()


def nest(names, value):
    layer = value
    for name in reversed(names):
        layer = {name: layer}
    return layer


def set_layer(text):
    """The layer of one --set PATH=VALUE."""
    parts, pos = parse_path(text, stop="=")
    if any(part[0] != "name" for part in parts):
        raise PathSyntaxError(f"--set takes a path of names only: {text!r}")
    return nest([name for _, name in parts], typed(text[pos + 1 :]))


def env_layer(prefix, environ):
    """One layer with every PREFIX_ variable, taken in ascending order of their names."""
    from confstack.layers import merge

    layer = {}
    start = prefix + "_"
    for variable in sorted(environ):
        if not variable.startswith(start):
            continue
        names = variable[len(start) :].lower().split("__")
        if any(not name for name in names):
            continue
        layer = merge(layer, nest(names, typed(environ[variable])))
    return layer

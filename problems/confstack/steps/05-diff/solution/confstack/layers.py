"""Merging configuration layers, first to last."""

from confstack.errors import ConfigError


def merge(base, layer, path=()):
    """`layer` over `base`: tables merge member by member, other values replace."""
    merged = dict(base)
    for name, value in layer.items():
        here = path + (name,)
        if name not in merged:
            merged[name] = value
            continue
        old = merged[name]
        if isinstance(old, dict) and isinstance(value, dict):
            merged[name] = merge(old, value, here)
        elif isinstance(old, dict) or isinstance(value, dict):
            raise ConfigError(f"conflict at {'.'.join(here)}")
        else:
            merged[name] = value
    return merged


def merge_all(layers):
    result = {}
    for layer in layers:
        result = merge(result, layer)
    return result

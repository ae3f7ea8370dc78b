"""Schemas: rules read from TOML, defaults, and validation into sorted problems."""

import json
from dataclasses import dataclass, field

from confstack.errors import ConfigError
from confstack.paths import format_path, select, step

TYPES = ("string", "integer", "float", "number", "boolean", "array", "table")
MEMBERS = {"type", "required", "default", "min", "max", "enum", "items"}


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def type_name(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "table"


def has_type(value, wanted):
    actual = type_name(value)
    return actual == wanted or (wanted == "number" and actual in ("integer", "float"))


def equal(left, right):
    if is_number(left) and is_number(right):
        return left == right
    if type_name(left) != type_name(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(equal(a, b) for a, b in zip(left, right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(equal(left[k], right[k]) for k in left)
    return left == right


@dataclass
class Rule:
    parts: tuple  # path parts: ("name", n) or ("any",)
    type: str
    required: bool = False
    default: object = None
    has_default: bool = False
    min: object = None
    max: object = None
    enum: list = None
    items: str = None


@dataclass
class Schema:
    rules: list = field(default_factory=list)
    tree: dict = field(default_factory=dict)  # names ("*" for any) -> subtree, or a Rule


def schema_error(parts, message):
    where = format_path(parts) if parts else "top level"
    return ConfigError(f"schema: {where}: {message}")


def read_rule(parts, body):
    rule = Rule(parts=parts, type=body["type"])
    for key, value in body.items():
        if key not in MEMBERS:
            raise schema_error(parts, f"unknown rule member '{key}'")
        if key in ("type", "items") and value not in TYPES:
            raise schema_error(parts, f"unknown type {value!r}")
        if key == "required" and not isinstance(value, bool):
            raise schema_error(parts, "'required' must be a boolean")
        if key in ("min", "max") and not is_number(value):
            raise schema_error(parts, f"'{key}' must be a number")
        if key == "enum" and not isinstance(value, list):
            raise schema_error(parts, "'enum' must be an array")
        if key == "default":
            rule.has_default = True
        setattr(rule, key, value)
    return rule


def read_group(parts, table, schema, tree):
    for name, body in table.items():
        part = ("any",) if name == "*" else ("name", name)
        here = parts + (part,)
        if not isinstance(body, dict):
            raise schema_error(here, "expected a rule or a group of rules")
        if "type" in body:
            rule = read_rule(here, body)
            schema.rules.append(rule)
            tree[name] = rule
        else:
            read_group(here, body, schema, tree.setdefault(name, {}))


def build_schema(table):
    schema = Schema()
    read_group((), table, schema, schema.tree)
    return schema


def parents(config, rule):
    """[(canonical path, table)] of the existing tables that hold the rule's value."""
    return [(path, value) for path, value in select(config, rule.parts[:-1]) if isinstance(value, dict)]


def ensure_tables(config, parts):
    """The table at `parts` (names only), created as needed; None when a value is in the way."""
    table = config
    for _, name in parts:
        child = table.setdefault(name, {})
        if not isinstance(child, dict):
            return None
        table = child
    return table


def apply_defaults(config, schema):
    for rule in schema.rules:
        if not rule.has_default or rule.parts[-1][0] != "name":
            continue
        name = rule.parts[-1][1]
        if all(part[0] == "name" for part in rule.parts[:-1]):
            table = ensure_tables(config, rule.parts[:-1])
            targets = [table] if table is not None else []
        else:
            targets = [table for _, table in parents(config, rule)]
        for table in targets:
            if not step(table, ("name", name)):
                table[name] = rule.default
    return config


def check_value(rule, path, value):
    problems = []
    if not has_type(value, rule.type):
        return [(path, f"expected {rule.type}, got {type_name(value)}")]
    if is_number(value) and rule.type in ("integer", "float", "number"):
        if rule.min is not None and value < rule.min:
            problems.append((path, f"must be at least {rule.min}"))
        if rule.max is not None and value > rule.max:
            problems.append((path, f"must be at most {rule.max}"))
    if rule.enum is not None and not any(equal(value, item) for item in rule.enum):
        listed = ", ".join(json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in rule.enum)
        problems.append((path, f"must be one of {listed}"))
    if rule.items and isinstance(value, list):
        for index, item in enumerate(value):
            if not has_type(item, rule.items):
                problems.append((path + (("index", index),), f"expected {rule.items}, got {type_name(item)}"))
    return problems


def validate_rule(config, rule):
    problems = []
    last = rule.parts[-1]
    holders = parents(config, rule)
    if not holders and rule.required and all(part[0] == "name" for part in rule.parts):
        return [(tuple(rule.parts), "required")]
    for path, table in holders:
        found = step(table, last)
        if not found and rule.required and last[0] == "name":
            problems.append((path + (last,), "required"))
        for chosen, value in found:
            problems.extend(check_value(rule, path + (chosen,), value))
    return problems


def unknown_members(value, tree, path=()):
    problems = []
    if not isinstance(value, dict):
        return problems
    for name in value:
        sub = tree.get(name, tree.get("*"))
        here = path + (("name", name),)
        if sub is None:
            problems.append((here, "unknown key"))
        elif isinstance(sub, dict):
            problems.extend(unknown_members(value[name], sub, here))
    return problems


def validate(config, schema, strict=False):
    """Sorted problem lines `PATH: PROBLEM`."""
    problems = [problem for rule in schema.rules for problem in validate_rule(config, rule)]
    if strict:
        problems.extend(unknown_members(config, schema.tree))
    lines = sorted({(format_path(path), message) for path, message in problems})
    return [f"{path}: {message}" for path, message in lines]

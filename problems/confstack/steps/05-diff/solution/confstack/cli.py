"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import json
import os
import sys

from confstack.diff import render_json, render_text, sorted_differences
from confstack.errors import ConfigError, NotFound
from confstack.ini import parse_ini
from confstack.layers import merge_all
from confstack.overrides import env_layer, set_layer
from confstack.schema import apply_defaults, build_schema, validate
from confstack.paths import PathSyntaxError, format_path, has_wildcard, parse_path, select
from confstack.toml import parse_toml


def build_parser(command):
    parser = argparse.ArgumentParser(prog=f"confstack {command}")
    if command in ("show", "check", "diff"):
        parser.add_argument("files", nargs="+", metavar="FILE")
    else:
        parser.add_argument("arguments", nargs="+", metavar="FILE... PATH")
    parser.add_argument("--set", action="append", default=[], metavar="PATH=VALUE")
    parser.add_argument("--env", metavar="PREFIX")
    parser.add_argument("--schema", metavar="SCHEMA", required=command == "check")
    if command == "check":
        parser.add_argument("--strict", action="store_true")
    if command == "diff":
        parser.add_argument("--to", nargs="+", required=True, metavar="NEW")
        parser.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def read_config(path):
    """The configuration in one file: TOML for `.toml`, INI otherwise."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    parse = parse_toml if path.endswith(".toml") else parse_ini
    try:
        return parse(text)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def read_schema(path):
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise ConfigError(f"schema: cannot read {path}: {error.strerror}") from None
    try:
        return build_schema(parse_toml(text))
    except ConfigError as error:
        message = str(error)
        raise ConfigError(message if message.startswith("schema") else f"schema: {path}: {message}") from None


def build(files, env_prefix, overrides, schema):
    """One configuration: the files, then the environment layer, then each --set; then defaults."""
    layers = [read_config(path) for path in files]
    if env_prefix:
        layers.append(env_layer(env_prefix, os.environ))
    config = merge_all(layers + overrides)
    if schema is not None:
        apply_defaults(config, schema)
    return config


def render(value):
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def print_selection(config, parts):
    """Prints what a path selects; returns the exit code."""
    found = select(config, parts)
    if has_wildcard(parts):
        for path, value in found:
            compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            print(f"{format_path(path)} = {compact}")
        return 0
    if not found:
        print(f"not found: {format_path(parts)}", file=sys.stderr)
        return 3
    print(render(found[0][1]))
    return 0


def main(argv):
    if not argv or argv[0] not in ("show", "get", "check", "diff"):
        print("usage: confstack {show,get,check,diff} FILE... [PATH] [options]", file=sys.stderr)
        return 2
    command = argv[0]
    parser = build_parser(command)
    args = parser.parse_intermixed_args(argv[1:])
    parts = None
    try:
        overrides = [set_layer(text) for text in args.set]
        if command == "get":
            if len(args.arguments) < 2:
                parser.error("get needs at least one FILE and a PATH")
            files = args.arguments[:-1]
            parts, _ = parse_path(args.arguments[-1])
        else:
            files = args.files
    except PathSyntaxError as error:
        parser.error(str(error))
    try:
        schema = read_schema(args.schema) if args.schema else None
        if command == "diff":
            old = build(files, None, [], schema)
            config = build(args.to, args.env, overrides, schema)
        else:
            config = build(files, args.env, overrides, schema)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if command == "diff":
        listed = sorted_differences(old, config)
        if args.format == "json":
            print(render_json(listed))
        else:
            for line in render_text(listed):
                print(line)
        return 0
    if command == "check":
        problems = validate(config, schema, args.strict)
        for line in problems or ["ok"]:
            print(line)
        return 4 if problems else 0
    if parts is None:
        print(json.dumps(config, ensure_ascii=False))
        return 0
    return print_selection(config, parts)

"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import json
import sys

from confstack.errors import ConfigError, NotFound
from confstack.ini import parse_ini
from confstack.layers import merge_all
from confstack.toml import parse_toml


def build_parser():
    parser = argparse.ArgumentParser(prog="confstack")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("show")
    show.add_argument("files", nargs="+", metavar="FILE")
    get = commands.add_parser("get")
    get.add_argument("arguments", nargs="+", metavar="FILE... KEY")
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


def lookup(config, key):
    value = config
    for name in key.split("."):
        if not isinstance(value, dict):
            raise NotFound(key)
        if name not in value:
            name = name.lower()
        if name not in value:
            raise NotFound(key)
        value = value[name]
    return value


def render(value):
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "get":
        if len(args.arguments) < 2:
            parser.error("get needs at least one FILE and a KEY")
        files, key = args.arguments[:-1], args.arguments[-1]
    else:
        files, key = args.files, None
    try:
        config = merge_all(read_config(path) for path in files)
        if key is None:
            print(json.dumps(config, ensure_ascii=False))
            return 0
        value = lookup(config, key)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except NotFound as missing:
        print(f"not found: {missing}", file=sys.stderr)
        return 3
    print(render(value))
    return 0

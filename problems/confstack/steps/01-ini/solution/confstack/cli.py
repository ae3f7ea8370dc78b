"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import json
import sys

from confstack.errors import ConfigError, NotFound
from confstack.ini import parse_ini


def build_parser():
    parser = argparse.ArgumentParser(prog="confstack")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("show")
    show.add_argument("file", metavar="FILE")
    get = commands.add_parser("get")
    get.add_argument("file", metavar="FILE")
    get.add_argument("key", metavar="KEY")
    return parser


def read_config(path):
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    try:
        return parse_ini(text)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def lookup(config, key):
    section, _, name = key.lower().partition(".")
    if section not in config or (name and name not in config[section]):
        raise NotFound(key)
    return config[section][name] if name else config[section]


def main(argv):
    args = build_parser().parse_args(argv)
    try:
        config = read_config(args.file)
        if args.command == "show":
            print(json.dumps(config, ensure_ascii=False))
            return 0
        value = lookup(config, args.key)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except NotFound as missing:
        print(f"not found: {missing}", file=sys.stderr)
        return 3
    print(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return 0

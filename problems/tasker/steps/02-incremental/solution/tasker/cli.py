"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import sys

from tasker.graph import check_graph, order, select
from tasker.model import TaskError
from tasker.runner import run_tasks
from tasker.state import State
from tasker.taskfile import read_taskfile


def build_parser():
    parser = argparse.ArgumentParser(prog="tasker")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("order", "run"):
        command = commands.add_parser(name)
        command.add_argument("targets", nargs="*", metavar="TARGET")
        command.add_argument("--file", default="tasks.txt", metavar="PATH")
        if name == "run":
            command.add_argument("--force", action="store_true")
    return parser


def main(argv):
    args = build_parser().parse_args(argv)
    try:
        tasks = read_taskfile(args.file)
        check_graph(tasks)
        names = order(tasks, select(tasks, args.targets))
        if args.command == "order":
            for name in names:
                print(name)
        else:
            run_tasks(tasks, names, sys.stdout.buffer, State(), force=args.force)
    except TaskError as error:
        sys.stdout.flush()
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0

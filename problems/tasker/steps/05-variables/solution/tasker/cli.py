"""Command line: parse arguments, run the command, map failures to exit codes."""

import argparse
import sys

from tasker.clean import clean
from tasker.explain import dry_run
from tasker.graph import check_graph, order, select
from tasker.model import TaskError
from tasker.scheduler import Scheduler
from tasker.state import State
from tasker.taskfile import read_taskfile
from tasker.variables import apply as apply_variables
from tasker.variables import parse_override


def job_count(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def override(text):
    try:
        return parse_override(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser():
    parser = argparse.ArgumentParser(prog="tasker")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("order", "run", "clean"):
        command = commands.add_parser(name)
        command.add_argument("targets", nargs="*", metavar="TARGET")
        command.add_argument("--file", default="tasks.txt", metavar="PATH")
        command.add_argument("--var", action="append", default=[], type=override, metavar="NAME=VALUE")
        if name == "run":
            command.add_argument("--force", action="store_true")
            command.add_argument("-j", "--jobs", type=job_count, default=1, metavar="N")
            command.add_argument("-k", "--keep-going", action="store_true")
            command.add_argument("--dry-run", action="store_true")
    return parser


def main(argv):
    args = build_parser().parse_args(argv)
    try:
        tasks, definitions = read_taskfile(args.file)
        apply_variables(tasks, definitions, dict(args.var))
        check_graph(tasks)
        names = order(tasks, select(tasks, args.targets))
        if args.command == "order":
            for name in names:
                print(name)
        elif args.command == "clean":
            for path in clean(tasks, names, State()):
                print(f"removed {path}")
        elif args.dry_run:
            for line in dry_run(tasks, names, State(), args.force):
                print(line)
        else:
            scheduler = Scheduler(
                tasks, names, State(), sys.stdout.buffer, args.jobs, args.keep_going, args.force
            )
            errors = scheduler.run()
            for message in errors:
                print(f"error: {message}", file=sys.stderr)
            return 1 if errors else 0
    except TaskError as error:
        sys.stdout.flush()
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0

/**
 * A pytest plugin loaded with `-p`: it writes every test's outcome under its exact node id (as
 * pytest prints it) to the JSON file named by LONGHAUL_OUTCOMES, plus the files that failed to
 * collect, and the interpreter and pytest that ran them. A setup or teardown failure makes the test `error`; xfail counts as passing
 * (SWE-bench's rule); nothing reported means `missing`.
 */
export const outcomesPluginModule = 'longhaul_swe_steps_outcomes';

export const outcomesPluginSource = `import json
import os
import platform
import sys

import pytest

_outcomes = {}
_collect_errors = []


def pytest_runtest_logreport(report):
    if report.when == "call":
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "failed"
        else:
            outcome = report.outcome
    elif report.failed:
        outcome = "error"
    elif report.skipped:
        outcome = "skipped"
    else:
        return
    if report.nodeid not in _outcomes or outcome in ("error", "failed"):
        _outcomes[report.nodeid] = outcome


def pytest_collectreport(report):
    if report.failed:
        _collect_errors.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["LONGHAUL_OUTCOMES"], "w") as out:
        json.dump({
            "tests": _outcomes,
            "collectErrors": _collect_errors,
            "runtime": {
                "python": platform.python_version(),
                "pytest": pytest.__version__,
                "executable": os.path.realpath(sys.executable),
            },
        }, out)
`;

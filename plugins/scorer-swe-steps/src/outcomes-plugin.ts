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
    path = os.environ["LONGHAUL_OUTCOMES"]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
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

/**
 * Runs pytest as `python -m pytest` would, with pytest and the outcomes plugin imported first.
 * `python -m` puts the working directory (the agent's tree) first on sys.path before anything is
 * imported, so a module there named pytest, _pytest, pluggy or json would replace what the judge
 * runs; run as a script, this file has its own folder there instead, and the working directory
 * takes that place once they are imported.
 */
export const launcherModule = 'longhaul_swe_steps_pytest';

export const launcherSource = `import json  # noqa: F401 (the plugin's, imported before the agent's tree is on sys.path)
import os
import platform  # noqa: F401
import sys

import pytest

import ${outcomesPluginModule}

sys.path[0] = os.getcwd()
sys.exit(pytest.main(sys.argv[1:], plugins=[${outcomesPluginModule}]))
`;

/**
 * A test that must fail, run with the suite: when the run reports it passed, something in the
 * process (the agent's code, imported by the tests) rewrote the results, and none is trusted.
 */
export function canarySource(name: string): string {
  return `def ${name}():\n    assert False, "the scorer's canary: this test must fail"\n`;
}

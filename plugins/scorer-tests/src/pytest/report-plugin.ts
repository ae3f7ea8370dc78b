/**
 * The judge's pytest plugin, installed in the judge area and loaded with `-p` (never from the
 * submission). It writes one JSON line per event to the file `--longhaul-report` names, in the
 * judge area, as events happen, so a run cut short still tells what it did:
 *
 * - `{"event": "start"}` once pytest is configured;
 * - `{"event": "collect-error", "nodeid", "message"}` for a module or folder that cannot be collected;
 * - `{"event": "report", "nodeid", "when", "category", "duration", "message"?, "keywords"?}` for
 *   each phase of each test: `category` is what pytest's `pytest_report_teststatus` hook says
 *   (`passed`, `failed`, `error`, `skipped`, `xfailed`, `xpassed`, or `""` for a phase that passed
 *   quietly), which is how pytest-json-report, the report SlopCodeBench reads, sets a test's
 *   outcome; `keywords` (the first report of a test only) are pytest's keywords of it, in order, as
 *   that report lists them;
 * - `{"event": "finish", "exitstatus", "collected"}` when the session ends.
 *
 * The judge runs as root and the program under test as the agent (see JudgeArea.confine), so what
 * the tests make for the program must be the agent's to use too, as it would be if both were one
 * user, as upstream runs them: umask 0 for the files and folders the tests create, and the
 * tmp_path folders (made 0700 by pytest) opened to all.
 */
export const reportPluginModule = 'longhaul_judge';

export const reportPluginSource = `import json
import os

import pytest

_report = None
_config = None


def pytest_addoption(parser):
    parser.addoption("--longhaul-report", action="store", required=True)


def _write(record):
    _report.write(json.dumps(record) + "\\n")
    _report.flush()


def _opened(method):
    def wrapper(self, *args, **kwargs):
        path = method(self, *args, **kwargs)
        os.chmod(path, 0o777)
        if path.parent.name.startswith("pytest-of-"):
            os.chmod(path.parent, 0o711)
        return path

    return wrapper


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    global _report, _config
    _config = config
    os.umask(0)
    pytest.TempPathFactory.mktemp = _opened(pytest.TempPathFactory.mktemp)
    pytest.TempPathFactory.getbasetemp = _opened(pytest.TempPathFactory.getbasetemp)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    _report = os.fdopen(os.open(config.getoption("--longhaul-report"), flags, 0o600), "w", encoding="utf-8")
    _write({"event": "start"})


def _message(report):
    longrepr = report.longrepr
    if longrepr is None:
        return None
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        text = str(longrepr[2])
        return text[len("Skipped: "):] if text.startswith("Skipped: ") else text
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        return crash.message
    return str(longrepr)


_seen = set()


def pytest_collectreport(report):
    if report.failed:
        _write({"event": "collect-error", "nodeid": report.nodeid, "message": str(report.longrepr)[-4000:]})


def pytest_runtest_logreport(report):
    category = _config.hook.pytest_report_teststatus(report=report, config=_config)[0]
    record = {
        "event": "report",
        "nodeid": report.nodeid,
        "when": report.when,
        "category": category if isinstance(category, str) else str(category),
        "duration": report.duration,
    }
    if report.nodeid not in _seen:
        _seen.add(report.nodeid)
        record["keywords"] = list(report.keywords)
    if report.failed or report.skipped:
        message = _message(report)
        if message is not None:
            record["message"] = message[:2000]
    if getattr(report, "wasxfail", None):
        record["message"] = str(report.wasxfail)[:2000]
    _write(record)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    _write({"event": "finish", "exitstatus": int(exitstatus), "collected": session.testscollected})

`;

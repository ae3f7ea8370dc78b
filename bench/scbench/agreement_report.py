"""Records every test pytest collected: file, name, markers and outcome, as JSON lines in
$AGREEMENT_REPORT. Loaded with `-p agreement_report`; it stands in for the pytest-json-report and
CTRF reports SlopCodeBench's runner reads (neither is packaged by Debian). A test collected but
never run (collection interrupted, pytest's exit 2) is recorded as `not-run`, never as passed."""

import json
import os

_outcomes = {}


def pytest_runtest_logreport(report):
    item = _outcomes.setdefault(report.nodeid, {"nodeid": report.nodeid, "outcome": "not-run"})
    if report.failed:
        item["outcome"] = "failed" if report.when == "call" else "error"
    elif report.skipped and item["outcome"] in ("not-run", "passed"):
        item["outcome"] = "skipped"
    elif report.passed and report.when == "call" and item["outcome"] == "not-run":
        item["outcome"] = "passed"


def pytest_collection_modifyitems(items):
    for item in items:
        entry = _outcomes.setdefault(item.nodeid, {"nodeid": item.nodeid, "outcome": "not-run"})
        entry["file"] = item.path.name
        entry["markers"] = sorted({marker.name for marker in item.iter_markers()})


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["AGREEMENT_REPORT"], "w") as out:
        for entry in _outcomes.values():
            out.write(json.dumps(entry) + "\n")
        out.write(json.dumps({"exitstatus": int(exitstatus)}) + "\n")

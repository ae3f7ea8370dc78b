"""Records every test pytest ran: file, name, markers and outcome, as JSON lines in
$AGREEMENT_REPORT. Loaded with `-p agreement_report`; it stands in for the pytest-json-report and
CTRF reports SlopCodeBench's runner reads (neither is packaged by Debian)."""

import json
import os

_outcomes = {}


def pytest_runtest_logreport(report):
    item = _outcomes.setdefault(report.nodeid, {"nodeid": report.nodeid, "outcome": "passed"})
    if report.failed:
        item["outcome"] = "failed" if report.when == "call" else "error"
    elif report.skipped and item["outcome"] == "passed":
        item["outcome"] = "skipped"


def pytest_collection_modifyitems(items):
    for item in items:
        entry = _outcomes.setdefault(item.nodeid, {"nodeid": item.nodeid, "outcome": "passed"})
        entry["file"] = item.path.name
        entry["markers"] = sorted({marker.name for marker in item.iter_markers()})


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["AGREEMENT_REPORT"], "w") as out:
        for entry in _outcomes.values():
            out.write(json.dumps(entry) + "\n")
        out.write(json.dumps({"exitstatus": int(exitstatus)}) + "\n")

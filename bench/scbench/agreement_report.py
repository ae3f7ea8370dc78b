"""Records each test pytest ran as pytest-json-report records it, which SlopCodeBench's runner reads
(Debian packages neither it nor pytest-json-ctrf): one entry per node id, made by the first report
of any of its phases, with the node's keywords (`list(report.keywords)`) and an outcome that starts
as "passed" and is replaced by every phase whose status category (the pytest_report_teststatus
hook) is neither "passed" nor empty, so a test that fails and then errors in teardown is one entry,
"error". A test collected but never run has no report, so no entry: upstream leaves it out. Written
as JSON lines to $AGREEMENT_REPORT, with pytest's exit status last. Loaded with
`-p agreement_report`."""

import json
import os

_config = None
_tests = {}


def pytest_configure(config):
    global _config
    _config = config


def pytest_runtest_logreport(report):
    entry = _tests.get(report.nodeid)
    if entry is None:
        entry = {"nodeid": report.nodeid, "keywords": list(report.keywords), "outcome": "passed"}
        _tests[report.nodeid] = entry
    category = _config.hook.pytest_report_teststatus(report=report, config=_config)[0]
    if category not in ("passed", ""):
        entry["outcome"] = category


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["AGREEMENT_REPORT"], "w") as out:
        for entry in _tests.values():
            out.write(json.dumps(entry) + "\n")
        out.write(json.dumps({"exitstatus": int(exitstatus)}) + "\n")

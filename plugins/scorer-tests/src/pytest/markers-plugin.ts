/**
 * A pytest plugin loaded with `-p`: it registers the markers SlopCodeBench's runner declares in its
 * pytest.ini (the built-in three and the problem's custom ones, named in LONGHAUL_PYTEST_MARKERS),
 * and records each test's marker names and file name as JUnit properties, so the scorer can
 * categorize tests from the XML alone.
 */
export const markersPluginModule = 'longhaul_markers';

export const markersPluginSource = `import json
import os

import pytest


def pytest_configure(config):
    custom = json.loads(os.environ.get("LONGHAUL_PYTEST_MARKERS", "[]"))
    for name in ["error", "functionality", "regression", *custom]:
        config.addinivalue_line("markers", f"{name}: SlopCodeBench test category")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    for item in items:
        names = sorted({marker.name for marker in item.iter_markers()})
        item.user_properties.append(("longhaul.markers", ",".join(names)))
        item.user_properties.append(("longhaul.file", item.path.name))
`;

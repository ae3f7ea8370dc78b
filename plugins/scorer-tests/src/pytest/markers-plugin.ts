/**
 * A pytest plugin loaded with `-p`: it records each test's marker names and file name as JUnit
 * properties, so the scorer can categorize tests from the XML alone.
 */
export const markersPluginModule = 'longhaul_markers';

export const markersPluginSource = `import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    for item in items:
        names = sorted({marker.name for marker in item.iter_markers()})
        item.user_properties.append(("longhaul.markers", ",".join(names)))
        item.user_properties.append(("longhaul.file", item.path.name))
`;

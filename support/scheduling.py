"""How `make test`'s workers share the suite (pytest-xdist): a test file is a unit of work, so that
its servers start once, except that the files with tests on a Docker Engine are one unit, run by
one worker one test after another. Those tests hold the host's network alone
(support/host_network.py): spread over workers they would wait for each other, and every browser
for them. Workers take the units in the order `ordered` gives (tests/conftest.py collects them
so): the engine's first, the files that start processes of their own (`slow`) next, then the
rest, more tests first, and the browsers' last, once no engine is left to wait for."""

import pytest
from xdist.scheduler import LoadScopeScheduling

ON_AN_ENGINE = frozenset({"engine", "tls_engine"})  # the fixtures that start one
ENGINE_FILES = frozenset(
    {
        "tests/bpctl/test_delivery.py",
        "tests/environments/test_delivery.py",
        "tests/environments/test_faults.py",
        "tests/environments/test_observation.py",
        "tests/environments/test_proxy.py",
        "tests/environments/test_ssh.py",
        "tests/environments/test_tls.py",
        "tests/service/test_host_network.py",
        "tests/web/test_environments_page.py",
    }
)
HOST_NETWORK = "host-network"


def file_of(nodeid):
    """The test file of the test `nodeid`."""
    return nodeid.split("::", 1)[0]


def on_an_engine(node):
    """Whether the test `node` (an item, or a fixture's request) takes a Docker Engine."""
    return bool(ON_AN_ENGINE & set(node.fixturenames))


def unit(nodeid):
    """The unit of work of the test `nodeid`."""
    file = file_of(nodeid)
    return HOST_NETWORK if file in ENGINE_FILES else file


def ordered(items):
    """The collected `items` in the order of their units (above), each unit's tests together. A
    test on an engine in a file ENGINE_FILES does not name is refused."""
    units = {}
    for item in items:
        file = file_of(item.nodeid)
        if on_an_engine(item) and file not in ENGINE_FILES:
            raise pytest.UsageError(f"{file} has tests on a Docker Engine: name it in support/scheduling.ENGINE_FILES")
        units.setdefault(unit(item.nodeid), []).append(item)
    return [item for tests in sorted(units.values(), key=_taken_before) for item in tests]


def _taken_before(tests):
    """The sort key of a unit of work, from its first test."""
    first = tests[0]
    if unit(first.nodeid) == HOST_NETWORK:
        return (0, 0)
    if first.get_closest_marker("browser"):
        return (3, -len(tests))
    return (1 if first.get_closest_marker("slow") else 2, -len(tests))


class ByUnit(LoadScopeScheduling):
    """xdist's scheduling by scope, a scope being a unit of work (above)."""

    def _split_scope(self, nodeid):
        return unit(nodeid)

"""support/scheduling.py names the files with tests on a Docker Engine, and no others: a test on an
engine elsewhere is refused at collection, and a file named that has none is found here."""

import pytest

from support import scheduling


def test_each_file_named_as_on_an_engine_has_tests_on_one(request):
    collected = {}
    for item in request.session.items:
        file = scheduling.file_of(item.nodeid)
        collected[file] = collected.get(file, False) or scheduling.on_an_engine(item)
    named = scheduling.ENGINE_FILES & set(collected)
    if not named:
        pytest.skip("none of the files named was collected with this test")
    assert {file for file in named if not collected[file]} == set()

"""docs/prices.md is what the service says every corpus template costs (support/prices.py): a
change of how anything is measured, defaulted or priced shows there, or this fails."""

import pytest

from support import prices


@pytest.mark.slow
def test_the_prices_document_is_what_the_service_computes():
    assert prices.DOCUMENT.read_text() == prices.document(prices.priced()), "run `make prices` if that is meant"

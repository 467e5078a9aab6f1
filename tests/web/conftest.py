"""The page tests' person: headless Chromium on the live app, `width` pixels wide (each page test
module names its widths), after alice and bob have made what support/pages.py seeds."""

import pytest

from support.browser import chromium
from support.pages import seed
from support.walk import Walk


@pytest.fixture
def seeded(app):
    """(a client, the template, alice's profiles)"""
    return seed(app)


@pytest.fixture
def person(app, live_port, tmp_path, width):
    browser = chromium(tmp_path, width=width, height=900)
    try:
        yield Walk(browser, live_port, width, tmp_path / "downloads")
    finally:
        browser.quit()

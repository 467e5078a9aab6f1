"""The sources' tests run against a git server (support/git_servers.py), with the app's settings
letting sources reach it on loopback."""

import pytest

from support.git_servers import forge, reaching, repository  # noqa: F401 (fixtures)


@pytest.fixture
def follows(app, forge, monkeypatch):  # noqa: F811
    return reaching(app, forge, monkeypatch)

"""The sources' tests run against a git server (support/git_servers.py), with the app's settings
letting sources reach it on loopback."""

import pytest

from support import corpus
from support.git_servers import forge, reaching, repository  # noqa: F401 (fixtures)


@pytest.fixture
def follows(app, forge, monkeypatch):  # noqa: F811
    return reaching(app, forge, monkeypatch)


def dokploy_files(*names):
    """The repository files of Dokploy templates of the corpus, under blueprints/ as Dokploy keeps them."""
    catalog = corpus.dokploy_catalog()
    return {f"blueprints/{name}/{file}": text for name in names for file, text in catalog[name].items()}

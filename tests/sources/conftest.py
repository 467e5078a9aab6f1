"""A git server for the sources' tests: one per module (smart HTTP behind nginx with TLS), its
repositories each test's own; the app's settings let sources reach it on loopback."""

import itertools

import pytest

from support import corpus
from support.git_servers import HttpGit, Repository

_names = itertools.count()


@pytest.fixture(scope="module")
def forge(tmp_path_factory):
    root = tmp_path_factory.mktemp("forge")
    (root / "repositories").mkdir()
    with HttpGit(root / "server", root / "repositories", names=("git.example.test",)) as server:
        yield server


@pytest.fixture
def repository(forge):
    return Repository(forge.root, f"catalog{next(_names)}")


@pytest.fixture
def follows(app, forge, monkeypatch):
    """The app lets sources reach the forge (on loopback) and trusts its certificate."""
    app.config.update(SOURCE_HOSTS=("127.0.0.1", "git.example.test"), SOURCE_PRIVATE=True)
    monkeypatch.setenv("GIT_SSL_CAINFO", forge.certificate)
    return app


def dokploy_files(*names):
    """The repository files of Dokploy templates of the corpus, under blueprints/ as Dokploy keeps them."""
    catalog = corpus.dokploy_catalog()
    return {f"blueprints/{name}/{file}": text for name in names for file, text in catalog[name].items()}

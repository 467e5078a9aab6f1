"""The real-world definitions (Compose files and Kubernetes manifests as people publish them), read
from the corpus folder beside this clone: files that others published are never copied into this
repository. Where the folder is absent the tests that need it skip, naming it; CI sets
REQUIRE_CORPUS, so that there they fail instead."""

import os
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def folder():
    if not FOLDER.is_dir():
        message = f"the corpus folder {FOLDER} is not beside this clone"
        if os.environ.get("REQUIRE_CORPUS"):
            pytest.fail(message)
        pytest.skip(message)
    return FOLDER


def text(name):
    """The text of `compose/NAME` or `kubernetes/NAME`, without its .yml."""
    return (folder() / f"{name}.yml").read_text()

"""The real-world definitions (Compose files and Kubernetes manifests as people publish them), read
from the corpus folder beside this clone: files that others published are never copied into this
repository. Where the folder is absent the tests that need it skip, naming it; CI sets
REQUIRE_CORPUS, so that there they fail instead."""

import json
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


def portainer_catalog(name):
    """A Portainer app templates file of the corpus (`portainer-templates-v3.json`...), as JSON."""
    return json.loads((folder() / "portainer" / name).read_text())


def portainer_files():
    """The stack files the Portainer catalogs name, by their `repository.stackfile` path."""
    root = folder() / "portainer" / "portainer-templates"
    return {str(path.relative_to(root)): path.read_text() for path in sorted(root.rglob("*")) if path.is_file()}


def openshift_templates():
    """{file name: Template} of the OpenShift templates of the corpus."""
    return {path.name: json.loads(path.read_text()) for path in sorted((folder() / "openshift").glob("*.json"))}


def dokploy_catalog():
    """{template id: {file name: text}} of the Dokploy templates of the corpus, as
    `bpctl import DIR --format dokploy` sends its `blueprints/` folder."""
    root = folder() / "dokploy"
    return {
        path.name: {file.name: file.read_text() for file in sorted(path.iterdir()) if file.is_file()}
        for path in sorted(root.iterdir())
        if path.is_dir()
    }


def platform_catalog(platform):
    """{template name: its YAML} of the Coolify (`coolify`) or CapRover (`caprover`) templates of
    the corpus, each named for its file without the extension, as `bpctl import DIR` names them."""
    root = folder() / platform
    return {path.stem: path.read_text() for path in sorted(root.glob("*.y*ml"))}


def dokploy_files(*names):
    """The repository files of Dokploy templates of the corpus, under blueprints/ as Dokploy keeps them."""
    catalog = dokploy_catalog()
    return {f"blueprints/{name}/{file}": text for name in names for file, text in catalog[name].items()}


def names(kind):
    """The names of the corpus's `kind` files (compose, kubernetes) a test takes each of, the ones
    written invalid on purpose left out; one saying the folder is absent where it is."""
    if not FOLDER.is_dir():
        return ["(the corpus folder is absent)"]
    return sorted(path.stem for path in FOLDER.glob(f"{kind}/*.yml") if not path.stem.startswith("invalid-"))

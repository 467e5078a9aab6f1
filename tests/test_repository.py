"""The repository explains itself: the contract and the served OpenAPI document are committed in
docs/, kept identical to their sources, and nothing in the code or the README points outside it.

`make openapi` rewrites docs/openapi.json from the app (run it when a change to the document is
meant, and read the diff)."""

import json
from pathlib import Path

import pytest

from support.apps import make_app
from support.http import FlaskClient

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SHARED_CONTRACT = ROOT.parent / "shared" / "API.md"  # where the contract is decided, beside the clone


def served_document():
    return FlaskClient(make_app("mongomock")).get("/openapi.json").json


def test_the_contract_in_docs_is_the_decided_one():
    if not SHARED_CONTRACT.exists():
        pytest.skip("the decided contract (../shared/API.md) is not beside this clone")
    assert (DOCS / "api.md").read_text() == SHARED_CONTRACT.read_text()


def test_the_served_openapi_document_is_the_committed_one():
    committed = json.loads((DOCS / "openapi.json").read_text())
    assert served_document() == committed, "the served document changed: if that is meant, run `make openapi`"


def test_nothing_in_the_code_docs_or_readme_points_outside_the_repository():
    code = [path for path in (ROOT / "app").rglob("*.[jp][sy]") if "node_modules" not in path.parts]  # ours only
    texts = [ROOT / "README.rst", *(DOCS.glob("*.md")), *code]
    pointing = [str(path.relative_to(ROOT)) for path in texts if "../shared" in path.read_text()]
    assert pointing == []


if __name__ == "__main__":
    (DOCS / "openapi.json").write_text(json.dumps(served_document(), indent=1, sort_keys=True) + "\n")

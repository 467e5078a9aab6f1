"""The README a newcomer reads: valid reStructuredText, short, every setting the service reads in
its configuration table, every path it names there, every endpoint it lists served."""

import re
from pathlib import Path

import docutils.core
import docutils.utils

from app import config
from support.apps import make_app
from support.http import FlaskClient

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.rst"


def test_the_readme_is_valid_restructuredtext():
    docutils.core.publish_doctree(
        README.read_text(), settings_overrides={"halt_level": docutils.utils.Reporter.WARNING_LEVEL, "report_level": 5}
    )


def test_every_setting_is_documented():
    text = README.read_text()
    table = text[text.index("Configuration\n") : text.index("Layout\n")]
    missing = [name for name in config.VARIABLES if f"``{name}``" not in table and name != "PROMETHEUS_MULTIPROC_DIR"]
    assert missing == []
    assert "PROMETHEUS_MULTIPROC_DIR" in text


def test_the_readme_is_short():
    assert len(README.read_text().splitlines()) <= 260


PATH = r"(?<![\w/.])((?:app|bpctl|docs|tests|bench|support|\.ci)/[\w./-]*\w)"


def test_every_path_the_readme_and_the_docs_name_exists():
    for document in [README, *(ROOT / "docs").glob("*.md")]:
        named = set(re.findall(PATH, document.read_text()))
        assert sorted(path for path in named if not (ROOT / path).exists()) == [], document.name


def test_every_endpoint_the_readme_lists_is_served():
    text = README.read_text()
    table = text[text.index("Endpoints\n") : text.index("Lists are keyset pages")]
    listed = {
        (method, path)
        for methods, path in re.findall(r"``([A-Z|]+) (/[^`]*)``", table)
        for method in methods.split("|")
    }
    document = FlaskClient(make_app("mongomock")).get("/openapi.json").json["paths"]
    operations = {(method.upper(), path) for path, item in document.items() for method in item}
    assert len(listed) >= 28 and listed - operations == set()
    assert {
        (method, path) for method, path in operations if method in ("GET", "POST", "PUT", "PATCH", "DELETE")
    } <= listed
    client = FlaskClient(make_app("mongomock"))
    for path in re.findall(r"``GET (/[a-z.]*)``", text[text.index("Without credentials") :].split("\n\n")[0]):
        assert client.get(path).status == 200, path

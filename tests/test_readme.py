"""The README a newcomer reads: valid reStructuredText, its configuration table written from the
settings' own, every path it names there, every endpoint it lists served."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import docutils.core
import docutils.utils
import pytest
import yaml

from app import config
from app.access.users import store as users
from support import tours
from support.apps import make_app, serving
from support.http import FlaskClient

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.rst"


def test_the_readme_is_valid_restructuredtext():
    docutils.core.publish_doctree(
        README.read_text(), settings_overrides={"halt_level": docutils.utils.Reporter.WARNING_LEVEL, "report_level": 5}
    )


def configuration_table():
    """The README's Configuration table, written from the settings' own table (app/config.py): a row
    per setting, or per run of settings that share a meaning."""
    rows = []
    for setting in (*config.SETTINGS, *config.SERVER):
        if setting.meaning is None:
            rows[-1][0].append(setting.read_from)
            continue
        default = setting.default
        shown = setting.shown or ("unset" if not default else default if default.isdigit() else f"``{default}``")
        rows.append(([setting.read_from], shown, setting.meaning))
    cells = [(", ".join(f"``{name}``" for name in names), shown, meaning) for names, shown, meaning in rows]
    widths = [max(len(header), *(len(row[i]) for row in cells)) for i, header in enumerate(HEADERS)]
    rule = " ".join("=" * width for width in widths)
    line = lambda row: " ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([rule, line(HEADERS), rule, *(line(row) for row in cells), rule]) + "\n"


HEADERS = ("variable", "default", "meaning")


def test_the_configuration_table_is_the_settings_table():
    """Every variable the service reads is in the README, as app/config.py declares it."""
    text = README.read_text()
    section = text[text.index("Configuration\n") : text.index("Operations\n")]
    assert configuration_table() in section, "run `python -m tests.test_readme` to write the table again"
    assert "PROMETHEUS_MULTIPROC_DIR" in text


PATH = r"(?<![\w/.])((?:app|bpctl|docs|tests|bench|support|\.ci)/[\w./-]*\w)"


def test_every_path_the_readme_and_the_docs_name_exists():
    for document in [README, *(ROOT / "docs").rglob("*.md")]:
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


@pytest.fixture
def served(socket_app):
    """The test users' service on a real socket (the embedded database behind it), its admin
    with the README's password: its URL."""
    with socket_app.app_context():
        users.set_password("admin", "change-me-now")
    with serving(socket_app) as port:
        yield f"http://127.0.0.1:{port}"


def test_the_curl_tour_runs_as_written(served, tmp_path):
    """The README's curl tour, run by bash with curl and jq (`make test` installs them with the
    browser where they are missing), against the service; each answer the README states is checked."""
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    if missing and not os.environ.get("REQUIRE_BROWSER"):  # CI installs them with the browser
        pytest.skip(f"{missing} missing: make test installs them when run as root")
    assert missing == []
    script = tours.script("A tour with curl")
    assert script.startswith("API=http://127.0.0.1:8000; AUTH=admin:change-me-now")
    script = script.replace("http://127.0.0.1:8000", served)
    done = subprocess.run(
        [shutil.which("bash"), "-c", "set -euo pipefail\n" + script],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr.decode()
    parts, rendered = _json_values(done.stdout.decode())
    requirements, fits, names, render_fits, maximized, rev, fields, imported_fits, defaulted = map(json.loads, parts)
    assert (requirements["containers"], requirements["memoryBytes"], requirements["cpuMillis"]) == (2, 512 * 2**20, 500)
    assert (fits, names, render_fits, maximized, rev) == (True, "curl-web", True, {"REPLICAS": 8}, 2)
    assert fields == {"version": {"from": None, "to": "1.1"}}
    assert (imported_fits, defaulted) == (True, ["db", "wordpress"])
    rendered, notes = rendered.rstrip().rsplit("\n", 1)
    assert json.loads(notes) == ["services.wordpress.ports.0"]  # its render for Kubernetes names what it approximates
    services = yaml.safe_load(rendered)["services"]
    assert [services[name]["deploy"] for name in ("wordpress", "db")] == [
        {"resources": {"limits": {"memory": "256m", "cpus": 0.25}}}
    ] * 2
    assert rendered.count("deploy: {resources: {limits: {memory: 256m, cpus: 0.25}}}") == 2


def _json_values(text):
    """The JSON values jq printed one after another (each pretty-printed over several lines),
    and the text after them (a definition jq printed raw)."""
    decoder, position, values = json.JSONDecoder(), 0, []
    while position < len(text.rstrip()):
        while text[position].isspace():
            position += 1
        try:
            _, end = decoder.raw_decode(text, position)
        except ValueError:
            break
        values.append(text[position:end])
        position = end
    return values, text[position:]


if __name__ == "__main__":  # writes the Configuration table again from app/config.py
    lines = README.read_text().splitlines(keepends=True)
    first = next(i for i in range(lines.index("Configuration\n"), len(lines)) if lines[i].startswith("="))
    end = next(i for i in range(first, len(lines)) if not lines[i].strip())
    README.write_text("".join([*lines[:first], configuration_table(), *lines[end:]]))

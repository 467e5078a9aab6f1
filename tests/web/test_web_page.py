"""The web page at / over HTTP: its headers, its weight, nothing from another host. Each page is
walked in headless Chromium by its own test module (test_<page>_page.py), as a person would click,
on a 1280-pixel and on a 390-pixel wide window; each fails on any console error but the refusals a
step provokes on purpose, and saves its screenshots to test-output/web/<width>/."""

import re
from pathlib import Path

import pytest

from support.http import FlaskClient

MOST_WEIGHT = 300_000
STATIC = Path(__file__).resolve().parents[2] / "app" / "web" / "static"
pytestmark = pytest.mark.parametrize("app", ["mongomock"], indirect=True)


# ---- over HTTP -------------------------------------------------------------------------------


def test_the_page_and_its_assets_carry_a_strict_policy_and_need_no_credentials(app):
    client = FlaskClient(app)
    page = client.get("/")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assets = ["/" + path for path in re.findall(r'(?:src|href)="(web/[^"]+)"', page.body.decode())]
    assert {"/web/app.js", "/web/app.css", "/web/icon.svg"} <= set(assets)
    assert not re.search(r'(?:src|href)="/', page.body.decode())  # relative: it works under a path prefix
    for response in [page, *(client.get(path) for path in assets)]:
        assert response.status == 200
        policy = dict(part.split(" ", 1) for part in response.headers["content-security-policy"].split("; "))
        assert policy["default-src"] == "'self'" and policy["script-src"] == "'self'"
        assert (
            policy["frame-ancestors"] == "'none'" and "unsafe-inline" not in response.headers["content-security-policy"]
        )
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"


def test_the_page_weighs_less_than_300_kb_and_loads_nothing_from_another_host(app):
    client = FlaskClient(app)
    page = client.get("/")
    linked = ["/" + path for path in re.findall(r'(?:src|href)="(web/[^"]+)"', page.body.decode())]
    modules = [f"/web/{path.name}" for path in sorted(STATIC.glob("*.js"))]  # app.js imports the others
    assert "/web/app.js" in linked and "/web/api.js" in modules
    assets = [client.get(path) for path in {*linked, *modules}]
    assert all(asset.status == 200 for asset in assets)
    assert len(page.body) + sum(len(asset.body) for asset in assets) < MOST_WEIGHT
    for response in [page, *assets]:
        text = response.body.replace(b'xmlns="http://www.w3.org/2000/svg"', b"")  # a name, never loaded
        assert not re.search(rb"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", text), "a reference to another host"


def test_an_unknown_asset_is_a_404_problem_and_the_api_paths_are_unchanged(app):
    client = FlaskClient(app)
    assert client.get("/web/nothing.js").status == 404
    assert client.get("/web/../__init__.py").status == 404
    assert client.get("/blueprints").status == 401  # the API still asks for credentials

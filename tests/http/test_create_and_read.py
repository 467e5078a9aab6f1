"""POST and GET-one for both resources, every status the contract lists for them, on both backends."""

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from pymongo.errors import ServerSelectionTimeoutError

from app.blueprints.storage import store as blueprint_store
from app.storage.database import get_db
from support.http import assert_problem

HEX24 = re.compile(r"[0-9a-f]{24}\Z")
RFC3339_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
def test_create_empty_then_read_it_back(api, collection):
    r = api.post(f"/{collection}", json={}, user="alice")
    assert r.status == 201
    body = r.json
    assert HEX24.match(body["id"]) and body["owner"] == "alice"
    assert RFC3339_UTC.match(body["createdAt"]) and body["createdAt"] == body["updatedAt"]
    assert r.headers["location"] == f"/{collection}/{body['id']}"
    assert r.headers["etag"] and r.headers["api-version"] == "1.0.0"

    again = api.get(r.headers["location"], user="alice")
    assert again.status == 200 and again.json == body and again.headers["etag"] == r.headers["etag"]
    not_modified = api.get(r.headers["location"], user="alice", headers={"If-None-Match": r.headers["etag"]})
    assert not_modified.status == 304 and not_modified.body == b""
    other_tag = api.get(r.headers["location"], user="alice", headers={"If-None-Match": '"nope"'})
    assert other_tag.status == 200


def test_profile_with_every_field(api):
    sent = {
        "name": "  large ",
        "defaultProfile": True,
        "memoryCap": "1.5Gi",
        "cpuCap": 0.5,
        "containerCap": 10,
        "storageCap": "100",
        "containerDefaults": {"memory": "256", "cpu": "100m"},
        "containerMax": {"memory": "1Gi", "cpu": 1},
        "entitledUsers": ["bob"],
    }
    r = api.post("/profiles", json=sent, user="alice")
    assert r.status == 201
    body = r.json
    assert body["name"] == "large" and body["defaultProfile"] is True
    caps = (body["memoryCap"], body["cpuCap"], body["containerCap"], body["storageCap"])
    assert caps == ("1.5Gi", "0.5", "10", "100")
    assert body["limits"] == {
        "memoryBytes": 1610612736,
        "cpuMillis": 500,
        "containers": 10,
        "storageBytes": 100 * 1024**3,
        "containerDefaults": {"memoryBytes": 256 * 1024**2, "cpuMillis": 100},
        "containerMax": {"memoryBytes": 1024**3, "cpuMillis": 1000},
    }
    assert body["containerMax"] == {"memory": "1Gi", "cpu": "1"} and body["entitledUsers"] == ["bob"]


def test_blueprint_with_every_field(api):
    sent = {
        "name": "web",
        "version": "1.0",
        "description": "A web tier",
        "blueprintType": "compose",
        "yml": "services:\n  web:\n    image: nginx\n",
        "entitlementType": "custom",
        "entitledUsers": ["bob", "victor"],
        "inactive": True,
    }
    r = api.post("/blueprints", json=sent, user="alice")
    assert r.status == 201
    body = r.json
    assert body["entitlementType"] == "CUSTOM" and body["entitledUsers"] == ["bob", "victor"]
    assert body["yml"] == sent["yml"] and body["inactive"] is True
    assert {k: body[k] for k in ("name", "version", "description", "blueprintType")} == {
        "name": "web",
        "version": "1.0",
        "description": "A web tier",
        "blueprintType": "compose",
    }


def test_a_text_s_length_is_counted_after_trimming_as_the_published_pattern_says(api, app):
    name, description = "  " + "n" * 200 + "  ", "\t" + "x" * 10_000 + "\n"
    trimmed = api.post("/blueprints", json={"name": name, "description": description}, user="alice")
    assert trimmed.status == 201 and trimmed.json["name"] == "n" * 200 and len(trimmed.json["description"]) == 10_000
    longer = api.post("/blueprints", json={"name": " " + "n" * 201 + " "}, user="alice")
    assert longer.status == 422 and longer.json["errors"]["name"] == [
        "Length must be between 1 and 200 after trimming."
    ]
    published = app.test_client().get("/openapi.json").json["components"]["schemas"]["Blueprint"]["properties"]["name"]
    assert "maxLength" not in published
    pattern = re.compile(published["pattern"])
    assert pattern.search(name) and not pattern.search(" " + "n" * 201 + " ") and not pattern.search("   ")


@pytest.mark.parametrize("inside", ["\x00", "\r\n", "\t", "\x7f", "\x85", "\u202e", "\u2066"])
def test_a_one_line_field_refuses_control_characters_and_bidirectional_overrides(api, app, inside):
    """A name holding a line break or a right-to-left override reads otherwise than it is stored
    (in a table, a log line, a YAML comment); a description may hold line breaks and tabs."""
    text = f"evil{inside}gpj.exe"
    for path, body, field in (
        ("/profiles", {"name": text}, "name"),
        ("/blueprints", {"name": text}, "name"),
        ("/blueprints", {"name": "ok", "version": text}, "version"),
        ("/imports", {"format": "native", "source": text, "document": {}}, "source"),
        (
            "/imports",
            {"format": "compose", "source": "s", "document": "x", "defaults": {"name": text}},
            "defaults.name",
        ),
    ):
        problem = assert_problem(api.post(path, json=body, user="alice"), 422)
        assert "control character" in str(problem["errors"][field]), (path, problem)
    published = app.test_client().get("/openapi.json").json["components"]["schemas"]["Blueprint"]["properties"]
    assert not re.search(published["name"]["pattern"], text) and not re.search(published["version"]["pattern"], text)
    kept = api.post("/blueprints", json={"name": f"\t{text[:4]}\n", "description": f"a{inside}b"}, user="alice")
    assert kept.status == 201 and kept.json["name"] == "evil" and kept.json["description"] == f"a{inside}b"
    assert re.search(published["name"]["pattern"], f"\t{text[:4]}\n")


def test_second_default_demotes_the_first(api):
    first = api.post("/profiles", json={"defaultProfile": True}, user="alice").json
    second = api.post("/profiles", json={"defaultProfile": True}, user="alice").json
    other_owner = api.post("/profiles", json={"defaultProfile": True}, user="bob").json
    assert api.get(f"/profiles/{first['id']}", user="alice").json["defaultProfile"] is False
    assert api.get(f"/profiles/{second['id']}", user="alice").json["defaultProfile"] is True
    assert api.get(f"/profiles/{other_owner['id']}", user="bob").json["defaultProfile"] is True


def test_404_for_unknown_paths_and_ids(api):
    assert_problem(api.get("/nowhere", user="alice"), 404)
    for bad in ("123", "0" * 24, "Z" * 24, "6B0294CAE6898274EF8229D8", "%00", "a" * 25):
        assert_problem(api.get(f"/profiles/{bad}", user="alice"), 404)


def test_405_with_allow(api):
    r = api.request("DELETE", "/profiles", user="alice")
    assert_problem(r, 405)
    assert "POST" in r.headers["allow"]


def test_500_hides_the_cause(api, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("db password is hunter2")

    monkeypatch.setattr(blueprint_store, "create", explode)
    r = api.post("/blueprints", json={}, user="alice")
    assert_problem(r, 500)
    assert b"hunter2" not in r.body and b"Traceback" not in r.body


def test_503_when_the_database_is_unreachable(api, monkeypatch):
    def unreachable(*args, **kwargs):
        raise ServerSelectionTimeoutError("127.0.0.1:1: connection refused")

    monkeypatch.setattr(blueprint_store, "create", unreachable)
    r = api.post("/blueprints", json={}, user="alice")
    assert_problem(r, 503)
    assert r.headers["retry-after"] and b"127.0.0.1" not in r.body


def test_request_id_is_echoed(api):
    r = api.get("/profiles/" + "0" * 24, user="alice", headers={"X-Request-ID": "abc-123"})
    assert r.headers["x-request-id"] == "abc-123" and r.json["requestId"] == "abc-123"


@pytest.mark.parametrize("app", ["socket"], indirect=True)  # mongomock is not a concurrent database
def test_twenty_simultaneous_defaults_all_succeed_and_leave_one(api, app):
    def create(i):
        return api.post("/profiles", json={"name": f"p{i}", "defaultProfile": True}, user="alice")

    with ThreadPoolExecutor(max_workers=20) as pool:
        responses = list(pool.map(create, range(20)))
    assert [r.status for r in responses] == [201] * 20
    ids = {r.json["id"] for r in responses}
    assert len(ids) == 20

    with app.app_context():
        docs = list(get_db().profiles.find({"owner": "alice"}))
    assert {str(d["_id"]) for d in docs} == ids
    assert sum(d["defaultProfile"] for d in docs) == 1
    default = next(str(d["_id"]) for d in docs if d["defaultProfile"])
    assert api.get(f"/profiles/{default}", user="alice").json["defaultProfile"] is True

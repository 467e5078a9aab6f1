"""POST and GET-one for both resources, every status the contract lists for them, on both backends."""
import re

import pytest
from pymongo.errors import ServerSelectionTimeoutError

from app.blueprints.storage import store as blueprint_store
from tests.http import assert_problem

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
    sent = {"name": "  large ", "defaultProfile": True, "memoryCap": "1.5Gi", "cpuCap": 0.5,
            "containerCap": 10, "storageCap": "100"}
    r = api.post("/profiles", json=sent, user="alice")
    assert r.status == 201
    body = r.json
    assert body["name"] == "large" and body["defaultProfile"] is True
    caps = (body["memoryCap"], body["cpuCap"], body["containerCap"], body["storageCap"])
    assert caps == ("1.5Gi", "0.5", "10", "100")
    assert body["limits"] == {"memoryBytes": 1610612736, "cpuMillis": 500, "containers": 10,
                              "storageBytes": 100 * 1024**3}


def test_blueprint_with_every_field(api):
    sent = {"name": "web", "version": "1.0", "description": "A web tier", "blueprintType": "compose",
            "yml": "services:\n  web:\n    image: nginx\n", "entitlementType": "custom",
            "entitledUsers": ["bob", "victor"], "inactive": True}
    r = api.post("/blueprints", json=sent, user="alice")
    assert r.status == 201
    body = r.json
    assert body["entitlementType"] == "CUSTOM" and body["entitledUsers"] == ["bob", "victor"]
    assert body["yml"] == "services:\n  web:\n    image: nginx" and body["inactive"] is True
    assert {k: body[k] for k in ("name", "version", "description", "blueprintType")} == {
        "name": "web", "version": "1.0", "description": "A web tier", "blueprintType": "compose"}


def test_second_default_demotes_the_first(api):
    first = api.post("/profiles", json={"defaultProfile": True}, user="alice").json
    second = api.post("/profiles", json={"defaultProfile": True}, user="alice").json
    other_owner = api.post("/profiles", json={"defaultProfile": True}, user="bob").json
    assert api.get(f"/profiles/{first['id']}", user="alice").json["defaultProfile"] is False
    assert api.get(f"/profiles/{second['id']}", user="alice").json["defaultProfile"] is True
    assert api.get(f"/profiles/{other_owner['id']}", user="bob").json["defaultProfile"] is True


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
@pytest.mark.parametrize("auth", [
    {}, {"user": "alice", "password": "wrong password"}, {"user": "nobody"},
    {"headers": {"Authorization": "Basic !!!"}}, {"headers": {"Authorization": "Bearer abc"}},
])
def test_401_for_bad_credentials(api, collection, auth):
    for r in (api.post(f"/{collection}", json={}, **auth), api.get(f"/{collection}/{'0' * 24}", **auth)):
        assert_problem(r, 401)
        assert r.headers["www-authenticate"].startswith("Basic")


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
def test_403_for_a_viewer_creating(api, collection):
    assert_problem(api.post(f"/{collection}", json={}, user="victor"), 403)


def test_400_for_bad_json_and_non_objects(api):
    for data in ("{", "", "[]", '"x"', "1", "{'a': 1}", b"\xff\xfe"):
        r = api.post("/profiles", data=data, headers={"Content-Type": "application/json"}, user="alice")
        assert_problem(r, 400)


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_415_for_non_json(api, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    assert_problem(api.post("/blueprints", data="{}", headers=headers, user="alice"), 415)


def test_json_suffix_media_types_are_json(api):
    r = api.post("/profiles", data="{}", headers={"Content-Type": "application/merge-patch+json"}, user="alice")
    assert r.status == 201


def test_413_for_bodies_over_1_mib(api):
    body = '{"description": "' + "x" * (1024 * 1024) + '"}'
    assert_problem(api.post("/blueprints", data=body, headers={"Content-Type": "application/json"}, user="alice"), 413)


def test_checks_run_in_the_contract_order(api):
    huge = "x" * (1024 * 1024 + 1)
    assert api.post("/profiles", data=huge, headers={"Content-Type": "text/plain"}).status == 401
    assert api.post("/profiles", data=huge, headers={"Content-Type": "text/plain"}, user="victor").status == 403
    assert api.post("/profiles", data=huge, headers={"Content-Type": "text/plain"}, user="alice").status == 413
    assert api.post("/profiles", data="{", headers={"Content-Type": "text/plain"}, user="alice").status == 415
    assert api.post("/profiles", data="{", headers={"Content-Type": "application/json"}, user="alice").status == 400


def test_422_names_every_bad_field(api):
    r = api.post("/profiles", json={"memoryCap": "lots", "cpuCap": {}, "defaultProfile": "true",
                                    "id": "x", "colour": "red", "name": ""}, user="alice")
    body = assert_problem(r, 422)
    assert set(body["errors"]) == {"memoryCap", "cpuCap", "defaultProfile", "id", "colour", "name"}
    assert body["errors"]["id"] == ["Read-only field."]


def test_422_for_unsafe_or_huge_yaml(api):
    bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\n" + "\n".join(
        f"{c}: &{c} [" + ",".join([f"*{p}"] * 10) + "]" for p, c in zip("abcdefg", "bcdefgh", strict=True))
    for yml in (bomb, "!!python/object/apply:os.system ['true']", "a: " + "x" * 300_000):
        body = assert_problem(api.post("/blueprints", json={"yml": yml}, user="alice"), 422)
        assert list(body["errors"]) == ["yml"]


def test_422_for_entitled_users_rules(api):
    unknown = api.post("/blueprints", json={"entitlementType": "CUSTOM", "entitledUsers": ["ghost1"]}, user="alice")
    assert "ghost1" in assert_problem(unknown, 422)["errors"]["entitledUsers"][0]
    not_custom = api.post("/blueprints", json={"entitlementType": "PUBLIC", "entitledUsers": ["bob"]}, user="alice")
    assert "entitledUsers" in assert_problem(not_custom, 422)["errors"]


def test_404_for_unknown_paths_and_ids(api):
    assert_problem(api.get("/nowhere", user="alice"), 404)
    for bad in ("123", "0" * 24, "Z" * 24, "6B0294CAE6898274EF8229D8", "%00", "a" * 25):
        assert_problem(api.get(f"/profiles/{bad}", user="alice"), 404)


def test_405_with_allow(api):
    r = api.request("DELETE", "/profiles", user="alice")
    assert_problem(r, 405)
    assert "POST" in r.headers["allow"]


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
def test_owner_only_resources_are_404_to_others(api, collection):
    created = api.post(f"/{collection}", json={}, user="alice").json
    path = f"/{collection}/{created['id']}"
    assert api.get(path, user="alice").status == 200
    assert api.get(path, user="admin").status == 200
    for other in ("bob", "victor"):
        body = assert_problem(api.get(path, user=other), 404)
        assert body == {**body, "detail": "No such resource."}


def test_public_and_custom_blueprints(api):
    public = api.post("/blueprints", json={"entitlementType": "PUBLIC"}, user="alice").json
    custom = api.post("/blueprints", json={"entitlementType": "CUSTOM", "entitledUsers": ["victor"]},
                      user="alice").json
    for user in ("alice", "bob", "victor", "admin"):
        assert api.get(f"/blueprints/{public['id']}", user=user).status == 200
    for user, status in (("alice", 200), ("victor", 200), ("admin", 200), ("bob", 404)):
        assert api.get(f"/blueprints/{custom['id']}", user=user).status == status


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


def test_a_blueprint_without_entitled_users_costs_no_user_lookup(api, monkeypatch):
    from app.users import storage as users

    def looked_up(names):
        raise AssertionError(f"looked up {names}")
    monkeypatch.setattr(users, "missing", looked_up)
    assert api.post("/blueprints", json={"entitlementType": "PUBLIC"}, user="alice").status == 201
    assert api.post("/blueprints", json={"entitlementType": "CUSTOM"}, user="alice").status == 201

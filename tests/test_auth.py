"""Authentication and accounts: both schemes on every route, roles, tokens, throttling, caching."""
import time
from datetime import UTC, datetime

import pytest
from werkzeug import security

from app import auth
from app.cache import TtlCache
from app.database import get_db
from app.users import storage
from tests.conftest import PASSWORD
from tests.http import assert_problem

PUBLIC_ENDPOINTS = {"static", "api-docs.openapi_json", "api-docs.openapi_swagger_ui", "docs_assets.asset",
                    "ops.healthz", "ops.readyz", "ops.metrics_page"}


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def token_for(api, user="alice"):
    r = api.post("/tokens", user=user)
    assert r.status == 201
    return r.json["token"]


def expire_all_tokens(app):
    with app.app_context():
        get_db().tokens.update_many({}, {"$set": {"expiresAt": datetime(2000, 1, 1, tzinfo=UTC)}})


def protected_requests(app):
    """(method, path) for every method of every route of the app that is not public."""
    for rule in app.url_map.iter_rules():
        if rule.endpoint in PUBLIC_ENDPOINTS:
            continue
        path = rule.rule.replace("<id>", "0" * 24)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield method, path


def test_the_route_list_is_not_empty(app):
    assert len(list(protected_requests(app))) >= 12


@pytest.mark.parametrize("kind", ["none", "wrong password", "unknown user", "malformed", "bad token", "expired token"])
def test_every_route_refuses_bad_credentials(api, app, kind):
    app.config.update(AUTH_MAX_FAILURES_PER_USER=10**6, AUTH_MAX_FAILURES_PER_ADDRESS=10**6)  # throttling aside
    expired = token_for(api)
    expire_all_tokens(app)
    credentials = {
        "none": {},
        "wrong password": {"user": "alice", "password": "not the password"},
        "unknown user": {"user": "mallory"},
        "malformed": {"headers": {"Authorization": "Basic not-base64!"}},
        "bad token": {"headers": bearer("x" * 43)},
        "expired token": {"headers": bearer(expired)},
    }[kind]
    for method, path in protected_requests(app):
        kwargs = dict(credentials)
        if method in ("POST", "PUT", "PATCH"):
            kwargs["json"] = {}
        r = api.request(method, path, **kwargs)
        assert_problem(r, 401)
        assert "Basic" in r.headers["www-authenticate"] and "Bearer" in r.headers["www-authenticate"]


WRITES = [("POST", "/profiles"), ("POST", "/blueprints"), ("PATCH", "/profiles/{p}"), ("PUT", "/profiles/{p}"),
          ("DELETE", "/profiles/{p}"), ("PATCH", "/blueprints/{b}"), ("PUT", "/blueprints/{b}"),
          ("DELETE", "/blueprints/{b}"), ("POST", "/users"), ("GET", "/users")]


@pytest.mark.parametrize("method, path", WRITES)
def test_roles_on_every_write(api, method, path):
    def target(user):
        ids = {"p": api.post("/profiles", json={}, user=user).json["id"],
               "b": api.post("/blueprints", json={}, user=user).json["id"]}
        return path.format(**ids)

    body = {"username": "newbie", "password": "long enough", "role": "member"} if path == "/users" else {}
    kwargs = {} if method in ("GET", "DELETE") else {"json": body}
    admin_only = path == "/users"
    assert api.request(method, target("alice"), user="victor", **kwargs).status == 403
    assert (api.request(method, target("alice"), user="alice", **kwargs).status == 403) == admin_only
    assert api.request(method, target("alice"), user="admin", **kwargs).status in (200, 201, 204)


def test_token_lifecycle(api):
    r = api.post("/tokens", user="alice")
    assert r.status == 201 and len(r.json["token"]) >= 43  # 32 random bytes, base64url
    expires = datetime.fromisoformat(r.json["expiresAt"].replace("Z", "+00:00"))
    assert 23.9 * 3600 < (expires - datetime.now(UTC)).total_seconds() <= 24 * 3600
    token = r.json["token"]
    assert api.get("/users/me", headers=bearer(token)).json["username"] == "alice"
    assert api.post("/profiles", json={}, headers=bearer(token)).json["owner"] == "alice"
    assert_problem(api.post("/tokens", headers=bearer(token)), 401)  # a token cannot mint tokens
    assert_problem(api.delete("/tokens", user="alice"), 401)  # revoking needs the token itself
    other = token_for(api)
    assert api.delete("/tokens", headers=bearer(token)).status == 204
    assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    assert api.get("/users/me", headers=bearer(other)).status == 200  # only the token used is revoked


def test_tokens_are_stored_only_as_digests(api, app):
    token = token_for(api)
    with app.app_context():
        stored = list(get_db().tokens.find())
    assert len(stored) == 1 and token not in str(stored)


def test_users_api(api):
    r = api.post("/users", json={"username": "dora.x@corp", "password": "long enough", "role": "viewer"},
                 user="admin")
    assert r.status == 201
    assert set(r.json) == {"id", "username", "role", "disabled", "createdAt"}
    assert r.json["role"] == "viewer" and r.json["disabled"] is False
    assert_problem(api.post("/users", json={"username": "dora.x@corp", "password": "long enough", "role": "viewer"},
                            user="admin"), 409)
    me = api.get("/users/me", user="dora.x@corp", password="long enough")
    assert me.status == 200 and me.json["username"] == "dora.x@corp"
    listed = api.get("/users?limit=2", user="admin")
    assert len(listed.json["items"]) == 2 and listed.json["next"]
    everyone = api.get("/users?limit=200", user="admin").json["items"]
    assert {u["username"] for u in everyone} >= {"admin", "alice", "dora.x@corp"}
    assert all("password" not in u and "passwordHash" not in u for u in everyone)
    assert b"pbkdf2" not in listed.body and PASSWORD.encode() not in listed.body


@pytest.mark.parametrize("body, field", [
    ({"username": "ab", "password": "long enough", "role": "member"}, "username"),
    ({"username": "has space", "password": "long enough", "role": "member"}, "username"),
    ({"username": "x" * 65, "password": "long enough", "role": "member"}, "username"),
    ({"username": "fine", "password": "short", "role": "member"}, "password"),
    ({"username": "fine", "password": "x" * 1025, "role": "member"}, "password"),
    ({"username": "fine", "password": "long enough", "role": "root"}, "role"),
    ({"username": "fine", "password": "long enough"}, "role"),
    ({"username": "fine", "password": "long enough", "role": "member", "disabled": True}, "disabled"),
])
def test_user_validation(api, body, field):
    assert field in assert_problem(api.post("/users", json=body, user="admin"), 422)["errors"]


class TestThrottling:
    @pytest.fixture
    def app(self, app):
        app.config.update(AUTH_MAX_FAILURES_PER_USER=3, AUTH_MAX_FAILURES_PER_ADDRESS=6)
        return app

    def test_a_username_is_throttled_after_its_failures_then_released(self, api, app):
        for _ in range(3):
            assert api.get("/users/me", user="alice", password="guess").status == 401
        throttled = api.get("/users/me", user="alice", password="guess")
        assert_problem(throttled, 429)
        assert 1 <= int(throttled.headers["retry-after"]) <= 300
        # even the right password is not checked while throttled, unless it was verified before
        assert api.get("/users/me", user="alice").status == 429
        assert api.get("/users/me", user="bob").status == 200  # others are not affected
        with app.app_context():  # the window passes
            get_db().auth_failures.update_many({}, {"$set": {"expireAt": datetime(2000, 1, 1, tzinfo=UTC)}})
        assert api.get("/users/me", user="alice").status == 200

    def test_recently_verified_credentials_are_not_slowed(self, api):
        assert api.get("/users/me", user="alice").status == 200
        for _ in range(4):
            api.get("/users/me", user="alice", password="guess")
        assert api.get("/users/me", user="alice").status == 200

    def test_a_client_address_is_throttled_across_usernames(self, api):
        for i in range(6):
            assert api.get("/users/me", user=f"nobody{i}").status == 401
        assert_problem(api.get("/users/me", user="nobody9"), 429)

    def test_bad_tokens_count_against_the_address(self, api):
        for _ in range(6):
            assert api.get("/users/me", headers=bearer("forged")).status == 401
        assert_problem(api.get("/users/me", headers=bearer("forged")), 429)

    def test_successes_do_not_count(self, api):
        for _ in range(10):
            assert api.get("/users/me", user="bob").status == 200
        assert api.get("/users/me", user="bob", password="guess").status == 401


class TestNoStaleCredentials:
    """The cache of verified credentials never outlives a change of the account."""

    def test_password_change(self, api, app):
        assert api.get("/users/me", user="alice").status == 200  # now cached
        with app.app_context():
            storage.set_password("alice", "a brand new password")
        assert_problem(api.get("/users/me", user="alice"), 401)
        assert api.get("/users/me", user="alice", password="a brand new password").status == 200

    def test_disable(self, api, app):
        token = token_for(api)
        assert api.get("/users/me", user="alice").status == 200
        with app.app_context():
            storage.set_disabled("alice", True)
        assert_problem(api.get("/users/me", user="alice"), 401)
        assert_problem(api.get("/users/me", headers=bearer(token)), 401)
        assert_problem(api.post("/tokens", user="alice"), 401)

    def test_role_change(self, api, app):
        assert api.post("/profiles", json={}, user="alice").status == 201
        with app.app_context():
            storage.set_role("alice", "viewer")
        assert_problem(api.post("/profiles", json={}, user="alice"), 403)


    def test_a_change_by_another_process_applies_within_user_cache_seconds(self, api, app):
        assert api.get("/users/me", user="alice").status == 200  # this process keeps its copy
        with app.app_context():  # as another worker, host or the CLI would, past this process's cache
            storage.users().update_one({"username": "alice"}, {"$set": {"disabled": True}})
        assert api.get("/users/me", user="alice").status == 200
        ttl = app.config["USER_CACHE_SECONDS"]
        assert ttl == 1
        app.extensions["users"].clock = lambda: time.monotonic() + ttl
        assert_problem(api.get("/users/me", user="alice"), 401)

    def test_with_no_user_cache_every_request_reads_the_record(self, api, app):
        app.config["USER_CACHE_SECONDS"] = 0
        assert api.get("/users/me", user="alice").status == 200
        with app.app_context():
            storage.users().update_one({"username": "alice"}, {"$set": {"role": "viewer"}})
        assert api.get("/users/me", user="alice").json["role"] == "viewer"


def test_cache_is_bounded_and_expires():
    cache = TtlCache(size=3)
    for i in range(5):
        cache.put(f"key{i}", f"value{i}", ttl=60)
    assert len(cache.entries) == 3
    assert cache.get("key0") is None and cache.get("key4") == "value4"
    cache.put("old", "value", ttl=-1)
    assert cache.get("old") is None


def test_the_credentials_cache_never_holds_a_password(api):
    assert api.get("/users/me", user="alice").status == 200
    assert auth.verified.entries
    for key, (value, _) in auth.verified.entries.items():
        assert PASSWORD.encode() not in key and PASSWORD not in value


def test_unknown_users_cost_one_hash_check_like_known_ones(api, monkeypatch):
    calls = []
    real = security.check_password_hash

    def counting(stored, password):
        calls.append(stored)
        return real(stored, password)
    monkeypatch.setattr(storage, "check_password_hash", counting)
    api.get("/users/me", user="alice", password="wrong one")
    api.get("/users/me", user="nobody", password="wrong one")
    assert len(calls) == 2 and calls[1].split("$")[0] == calls[0].split("$")[0]

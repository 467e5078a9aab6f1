"""What each process caches, and why it never serves a stale answer for long: verified
credentials, user records (USER_CACHE_SECONDS), and the cache they are built on."""

import time

from app import create_app, state
from app.access.users import store as users
from app.storage.cache import TtlCache
from app.storage.database import get_db
from support.apps import make_app, settings
from support.http import PASSWORD, FlaskClient, assert_problem, bearer, token_for


def test_a_new_password_applies_at_once_to_cached_credentials(api, app):
    assert api.get("/users/me", user="alice").status == 200  # now cached
    with app.app_context():
        users.set_password("alice", "a brand new password")
    assert_problem(api.get("/users/me", user="alice"), 401)
    assert api.get("/users/me", user="alice", password="a brand new password").status == 200


def test_disabling_applies_at_once_to_cached_credentials_and_tokens(api, app):
    token = token_for(api)
    assert api.get("/users/me", user="alice").status == 200
    with app.app_context():
        users.set_disabled("alice", True)
    assert_problem(api.get("/users/me", user="alice"), 401)
    assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    assert_problem(api.post("/tokens", user="alice"), 401)


def test_a_new_role_applies_at_once(api, app):
    assert api.post("/profiles", json={}, user="alice").status == 201
    with app.app_context():
        users.set_role("alice", "viewer")
    assert_problem(api.post("/profiles", json={}, user="alice"), 403)


def test_a_change_by_another_process_applies_within_user_cache_seconds(api, app):
    assert api.get("/users/me", user="alice").status == 200  # this process keeps its copy
    with app.app_context():  # as another worker, host or the CLI would, past this process's cache
        get_db().users.update_one({"username": "alice"}, {"$set": {"disabled": True}})
    assert api.get("/users/me", user="alice").status == 200
    ttl = app.config["USER_CACHE_SECONDS"]
    assert ttl == 1
    state.of(app).users.clock = lambda: time.monotonic() + ttl
    assert_problem(api.get("/users/me", user="alice"), 401)


def test_with_no_user_cache_every_request_reads_the_record(api, app):
    app.config["USER_CACHE_SECONDS"] = 0
    assert api.get("/users/me", user="alice").status == 200
    with app.app_context():
        get_db().users.update_one({"username": "alice"}, {"$set": {"role": "viewer"}})
    assert api.get("/users/me", user="alice").json["role"] == "viewer"


def test_the_cache_is_bounded_and_expires():
    cache = TtlCache(size=3)
    for i in range(5):
        cache.put(f"key{i}", f"value{i}", ttl=60)
    assert len(cache.entries) == 3
    assert cache.get("key0") is None and cache.get("key4") == "value4"
    cache.put("old", "value", ttl=-1)
    assert cache.get("old") is None


def test_the_credentials_cache_never_holds_a_password(api, app):
    assert api.get("/users/me", user="alice").status == 200
    verified = state.of(app).verified
    assert verified.entries
    for key, (value, _) in verified.entries.items():
        assert PASSWORD.encode() not in key and PASSWORD not in value


def test_a_revocation_of_every_token_holds_at_once_in_another_worker(mongo_server):
    """Two apps on one database, as two workers: the second had the user record cached (for up to
    USER_CACHE_SECONDS) and served a revoked token for that long."""
    first = make_app("socket", mongo_server.uri)
    second = create_app(settings(MONGO_URI=mongo_server.uri, MONGO_DB=first.config["MONGO_DB"]))
    one, other = FlaskClient(first), FlaskClient(second)
    tokens = [token_for(one) for _ in range(2)]
    assert all(other.get("/users/me", headers=bearer(token)).status == 200 for token in tokens)  # cached there
    assert one.delete("/tokens?all=true", headers=bearer(tokens[0])).status == 204
    for token in tokens:
        assert_problem(other.get("/users/me", headers=bearer(token)), 401)
    issued = one.post("/tokens", user="alice")
    assert issued.headers["cache-control"] == "no-store"
    assert other.get("/users/me", headers=bearer(issued.json["token"])).status == 200

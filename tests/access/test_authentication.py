"""Authentication and accounts: both schemes on every route, roles, tokens, throttling, caching."""

import re
from datetime import UTC, datetime

import pytest
from werkzeug import security

from app import config
from app.access import users
from app.storage.database import get_db
from support.apps import make_app
from support.http import PASSWORD, FlaskClient, assert_problem, bearer, token_for

PUBLIC_ENDPOINTS = {
    "static",
    "docs.openapi_json",
    "docs.page",
    "docs.script",
    "docs.asset",
    "ops.healthz",
    "sign_in.sso",  # what a client asks the identity provider for
    "sign_in.login",  # the sign-in through it: a redirect there, the way back, the hand-over
    "sign_in.callback",
    "sign_in.session",
    "ops.readyz",
    "ops.metrics_page",
    "web.page",  # the page loads without credentials and signs in itself
    "web.asset",
    "sources.SourceWebhook",  # a forge's push: its signature is its credentials (tests/sources/test_webhooks.py)
}


def expire_all_tokens(app):
    with app.app_context():
        get_db().tokens.update_many({}, {"$set": {"expiresAt": datetime(2000, 1, 1, tzinfo=UTC)}})


def protected_requests(app):
    """(method, path) for every method of every route of the app that is not public."""
    for rule in app.url_map.iter_rules():
        if rule.endpoint in PUBLIC_ENDPOINTS:
            continue
        path = re.sub(r"<(\w+:)?id>", "0" * 24, rule.rule).replace("<int:rev>", "1")
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


def test_a_token_works_for_a_day_until_it_is_revoked(api):
    r = api.post("/tokens", user="alice")
    assert r.status == 201 and len(r.json["token"]) >= 43  # 32 random bytes, base64url
    expires = datetime.fromisoformat(r.json["expiresAt"].replace("Z", "+00:00"))
    assert 23.9 * 3600 < (expires - datetime.now(UTC)).total_seconds() <= 24 * 3600
    token = r.json["token"]
    assert api.get("/users/me", headers=bearer(token)).json["username"] == "alice"
    assert api.post("/profiles", json={}, headers=bearer(token)).json["owner"] == "alice"
    assert_problem(api.post("/tokens", headers=bearer(token)), 401)  # a token cannot mint tokens
    assert "all" in assert_problem(api.delete("/tokens", user="alice"), 422)["errors"]  # which token, then?
    other = token_for(api)
    assert api.delete("/tokens", headers=bearer(token)).status == 204
    assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    assert api.get("/users/me", headers=bearer(other)).status == 200  # only the token used is revoked


def test_a_user_revokes_every_token_of_theirs_at_once(api):
    first, second, bobs = token_for(api), token_for(api), token_for(api, "bob")
    assert api.delete("/tokens?all=true", headers=bearer(first)).status == 204
    for token in (first, second):
        assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    assert api.get("/users/me", headers=bearer(bobs)).status == 200
    fresh = token_for(api)  # tokens issued afterwards work
    assert api.get("/users/me", headers=bearer(fresh)).status == 200
    assert api.delete("/tokens?all=true", user="alice").status == 204  # with the password too, a token lost
    assert_problem(api.get("/users/me", headers=bearer(fresh)), 401)
    assert api.delete("/tokens?all=yes", user="alice").status == 422


def test_a_password_change_revokes_every_token_and_a_wrong_current_one_counts_as_a_failed_login(api, app):
    app.config.update(AUTH_MAX_FAILURES_PER_USER=3)
    token = token_for(api)
    wrong = api.post("/users/me/password", json={"current": "not it", "new": "a new passphrase"}, user="alice")
    assert_problem(wrong, 403)
    short = api.post("/users/me/password", json={"current": PASSWORD, "new": "short"}, user="alice")
    assert "new" in assert_problem(short, 422)["errors"]
    changed = api.post("/users/me/password", json={"current": PASSWORD, "new": "a new passphrase"}, user="alice")
    assert changed.status == 204
    assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    assert_problem(api.get("/users/me", user="alice"), 401)  # the old password is gone
    assert api.get("/users/me", user="alice", password="a new passphrase").status == 200
    body, bobs = {"current": "not it either", "new": "another passphrase"}, bearer(token_for(api, "bob"))
    for _ in range(3):
        assert_problem(api.post("/users/me/password", json=body, headers=bobs), 403)
    assert_problem(api.post("/users/me/password", json=body, headers=bobs), 429)  # three failed logins


def test_set_password_and_disable_revoke_tokens_and_enabling_brings_none_back(api, app):
    runner = app.test_cli_runner()
    token = token_for(api)
    assert (
        runner.invoke(args=["users", "set-password", "alice"], input="a new passphrase\na new passphrase\n").exit_code
        == 0
    )
    assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    token = token_for(api, "bob")
    assert runner.invoke(args=["users", "disable", "bob"]).exit_code == 0
    assert runner.invoke(args=["users", "enable", "bob"]).exit_code == 0
    assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    assert api.get("/users/me", headers=bearer(token_for(api, "bob"))).status == 200


def test_tokens_are_stored_only_as_digests(api, app):
    token = token_for(api)
    with app.app_context():
        stored = list(get_db().tokens.find())
    assert len(stored) == 1 and token not in str(stored)


def test_admins_create_list_change_and_disable_users(api):
    r = api.post("/users", json={"username": "dora.x@corp", "password": "long enough", "role": "viewer"}, user="admin")
    assert r.status == 201
    assert set(r.json) == {"id", "username", "role", "disabled", "createdAt"}
    assert r.json["role"] == "viewer" and r.json["disabled"] is False
    assert_problem(
        api.post("/users", json={"username": "dora.x@corp", "password": "long enough", "role": "viewer"}, user="admin"),
        409,
    )
    me = api.get("/users/me", user="dora.x@corp", password="long enough")
    assert me.status == 200 and me.json["username"] == "dora.x@corp"
    listed = api.get("/users?limit=2", user="admin")
    assert len(listed.json["items"]) == 2 and listed.json["next"]
    everyone = api.get("/users?limit=200", user="admin").json["items"]
    assert {u["username"] for u in everyone} >= {"admin", "alice", "dora.x@corp"}
    assert all("password" not in u and "passwordHash" not in u for u in everyone)
    assert b"pbkdf2" not in listed.body and PASSWORD.encode() not in listed.body


@pytest.mark.parametrize("username", ["ALICE", "Alice", "aLiCe"])
def test_a_username_that_differs_from_another_only_in_case_is_taken(api, username):
    """`alice`, `ALICE` and `Alice` were three users, each able to pass as the others in a list."""
    taken = api.post("/users", json={"username": username, "password": "long enough", "role": "member"}, user="admin")
    assert "taken" in assert_problem(taken, 409)["detail"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"username": "ab", "password": "long enough", "role": "member"}, "username"),
        ({"username": "has space", "password": "long enough", "role": "member"}, "username"),
        ({"username": "x" * 65, "password": "long enough", "role": "member"}, "username"),
        ({"username": "fine", "password": "short", "role": "member"}, "password"),
        ({"username": "fine", "password": "x" * 1025, "role": "member"}, "password"),
        ({"username": "fine", "password": "long enough", "role": "root"}, "role"),
        ({"username": "fine", "password": "long enough"}, "role"),
        ({"username": "fine", "password": "long enough", "role": "member", "disabled": True}, "disabled"),
    ],
)
def test_a_user_body_with_a_bad_field_is_refused_naming_it(api, body, field):
    assert field in assert_problem(api.post("/users", json=body, user="admin"), 422)["errors"]


def test_unknown_users_cost_one_hash_check_like_known_ones(api, monkeypatch):
    calls = []
    real = security.check_password_hash

    def counting(stored, password):
        calls.append(stored)
        return real(stored, password)

    monkeypatch.setattr(users, "check_password_hash", counting)
    api.get("/users/me", user="alice", password="wrong one")
    api.get("/users/me", user="nobody", password="wrong one")
    assert len(calls) == 2 and calls[1].split("$")[0] == calls[0].split("$")[0]


def test_no_cookie_session_is_opened(app, api):
    """Credentials come with every request: the session is Flask's null one, which refuses a
    write, and no response sets a cookie."""
    import flask

    with app.test_request_context("/"), pytest.raises(RuntimeError):
        flask.session["user"] = "alice"
    for r in (api.get("/users/me", user="alice"), api.post("/tokens", user="alice"), api.get("/users/me")):
        assert "set-cookie" not in r.headers


def test_with_passwords_off_basic_signs_in_the_first_admin_alone():
    """An operator whose people sign in through their identity provider turns passwords off: a
    password, right or wrong, signs in nobody but ADMIN_USERNAME; tokens keep working."""
    app = make_app("mongomock", ADMIN_USERNAME="root", ADMIN_PASSWORD="a long root passphrase")
    api = FlaskClient(app)
    token = token_for(api)  # alice's, made while passwords were on
    app.config.update(PASSWORDS=False)
    for user in ("alice", "admin"):  # a member, and an admin who is not the first
        assert_problem(api.get("/users/me", user=user), 401)
        assert_problem(api.post("/tokens", user=user), 401)
    assert api.get("/users/me", user="root", password="a long root passphrase").json["username"] == "root"
    assert_problem(api.get("/users/me", user="root", password="wrong"), 401)
    assert api.get("/users/me", headers=bearer(token)).json["username"] == "alice"


@pytest.mark.parametrize("value", ["On", "off", " OFF "])
def test_passwords_is_on_or_off_and_nothing_else(value):
    assert config.from_env({"PASSWORDS": value})["PASSWORDS"] is (value.strip().lower() == "on")
    with pytest.raises(ValueError, match="PASSWORDS is `on` or `off`"):
        config.from_env({"PASSWORDS": "of"})

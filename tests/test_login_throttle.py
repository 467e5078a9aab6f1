"""Failed logins are throttled per username and per client address, across workers."""

from datetime import UTC, datetime

import pytest

from app.storage.database import get_db
from support.http import assert_problem, bearer


@pytest.fixture
def app(app):
    app.config.update(AUTH_MAX_FAILURES_PER_USER=3, AUTH_MAX_FAILURES_PER_ADDRESS=6)
    return app


def test_a_username_is_throttled_after_its_failures_then_released(api, app):
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


def test_recently_verified_credentials_are_not_slowed(api):
    assert api.get("/users/me", user="alice").status == 200
    for _ in range(4):
        api.get("/users/me", user="alice", password="guess")
    assert api.get("/users/me", user="alice").status == 200


def test_a_client_address_is_throttled_across_usernames(api):
    for i in range(6):
        assert api.get("/users/me", user=f"nobody{i}").status == 401
    assert_problem(api.get("/users/me", user="nobody9"), 429)


def test_bad_tokens_count_against_the_address(api):
    for _ in range(6):
        assert api.get("/users/me", headers=bearer("forged")).status == 401
    assert_problem(api.get("/users/me", headers=bearer("forged")), 429)


def test_successes_do_not_count(api):
    for _ in range(10):
        assert api.get("/users/me", user="bob").status == 200
    assert api.get("/users/me", user="bob", password="guess").status == 401

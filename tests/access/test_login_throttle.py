"""Failed logins are throttled without letting a guesser lock anyone else out: a username from
one address, then an address or a username from everywhere, sparing the addresses a user signed
in from (docs/security.md, "Guessing passwords"); across workers, since the counters are stored."""

from datetime import UTC, datetime

import pytest

from app.storage.database import get_db
from support.http import assert_problem, bearer


@pytest.fixture
def app(app):
    app.config.update(AUTH_MAX_FAILURES_PER_USER=3, AUTH_MAX_FAILURES_PER_ADDRESS=6, AUTH_MAX_FAILURES_PER_ACCOUNT=6)
    return app


def test_a_username_is_throttled_from_the_guessing_address_only_then_released(api, app):
    guesser = api.at("127.0.0.9")
    for _ in range(3):
        assert guesser.get("/users/me", user="alice", password="guess").status == 401
    throttled = guesser.get("/users/me", user="alice", password="guess")
    assert_problem(throttled, 429)
    assert 1 <= int(throttled.headers["retry-after"]) <= 300
    assert guesser.get("/users/me", user="alice").status == 429  # the right password is not even checked
    assert api.get("/users/me", user="alice").status == 200  # alice, elsewhere, is not locked out
    assert guesser.get("/users/me", user="bob").status == 200  # nor others at the guesser's address
    with app.app_context():  # the window passes
        get_db().auth_failures.update_many({}, {"$set": {"expireAt": datetime(2000, 1, 1, tzinfo=UTC)}})
    assert guesser.get("/users/me", user="alice").status == 200


def test_guessing_one_username_from_many_addresses_spares_the_addresses_it_signed_in_from(api):
    assert api.get("/users/me", user="alice").status == 200  # alice's own address becomes known
    for host in range(10, 16):  # six addresses, one guess each: under the per-address limits
        assert api.at(f"127.0.0.{host}").get("/users/me", user="alice", password="guess").status == 401
    assert_problem(api.at("127.0.0.20").get("/users/me", user="alice", password="guess"), 429)
    assert api.get("/users/me", user="alice", password="a typo").status == 401  # alice's own is still checked
    assert api.get("/users/me", user="alice").status == 200


def test_guessing_many_usernames_from_one_address_spares_those_known_there(api):
    """A company's NAT: one address, a sprayer among its users."""
    office = api.at("127.0.0.30")
    assert office.get("/users/me", user="bob").status == 200
    for index in range(6):
        assert office.get("/users/me", user=f"nobody{index}").status == 401
    assert_problem(office.get("/users/me", user="nobody9"), 429)
    assert_problem(office.get("/users/me", user="alice"), 429)  # never signed in from here
    assert office.get("/users/me", user="bob").status == 200  # signed in from here before
    assert api.get("/users/me", user="alice").status == 200  # other addresses are not affected


def test_bad_tokens_are_refused_but_never_counted(api):
    """A token cannot be guessed; a script's expired one must not lock out its address."""
    for _ in range(10):
        assert_problem(api.get("/users/me", headers=bearer("forged")), 401)
    assert api.get("/users/me", user="alice").status == 200


def test_recently_verified_credentials_are_not_slowed(api):
    assert api.get("/users/me", user="alice").status == 200
    for _ in range(4):
        api.get("/users/me", user="alice", password="guess")
    assert api.get("/users/me", user="alice").status == 200


def test_successes_do_not_count(api):
    for _ in range(10):
        assert api.get("/users/me", user="bob").status == 200
    assert api.get("/users/me", user="bob", password="guess").status == 401

"""The request quota (RATE_LIMIT): per user, over every worker, in shares of a shared window."""

import pytest
from limits import parse

from app import create_app
from app.access import request_quota
from app.storage.database import get_db
from support.apps import make_app
from support.http import FlaskClient, assert_problem


def test_the_quota_is_per_user(app, api):
    app.config["RATE_LIMIT"] = "3 per minute"
    assert [api.get("/users/me", user="alice").status for _ in range(3)] == [200] * 3
    limited = api.get("/users/me", user="alice")
    assert_problem(limited, 429)
    assert 1 <= int(limited.headers["retry-after"]) <= 61  # the end of the 60 s window, rounded up
    assert api.get("/users/me", user="bob").status == 200
    assert "retry-after" not in api.get("/users/me", user="bob").headers


def test_counters_live_in_mongodb(mongo_server):
    app = make_app("socket", mongo_server.uri, RATE_LIMIT="2 per minute")
    first, second = FlaskClient(app), FlaskClient(create_app(app.config))  # another worker, same database
    assert first.get("/users/me", user="carol").status == 200
    assert second.get("/users/me", user="carol").status == 200
    assert_problem(first.get("/users/me", user="carol"), 429)
    assert_problem(second.get("/users/me", user="carol"), 429)


@pytest.mark.parametrize("workers, limit, requests", [(2, 10, 40), (3, 200, 600), (4, 9000, 9500)])
def test_shares_never_exceed_the_limit_and_spend_it_all(app, workers, limit, requests):
    """Processes reserving shares of one window, taking turns: together they admit exactly
    `limit` requests (a share is at most 64 and shrinks as the window runs out)."""
    quotas, item = [request_quota.Quotas() for _ in range(workers)], parse(f"{limit} per hour")
    with app.app_context():
        admitted = sum(not quotas[i % workers].take("user:x", item) for i in range(requests))
        counted = get_db().rate_limits.find_one({"_id": "user:x"})["count"]
    assert admitted == limit and counted >= limit


def test_a_busy_user_costs_one_counter_update_per_64_requests(app, monkeypatch):
    calls = []
    real = request_quota.count_in_window
    monkeypatch.setattr(request_quota, "count_in_window", lambda *a: calls.append(a[-1]) or real(*a))
    quotas = request_quota.Quotas()
    with app.app_context():
        assert not any(quotas.take("user:busy", parse("100000 per hour")) for _ in range(640))
    assert calls == [64] * 10

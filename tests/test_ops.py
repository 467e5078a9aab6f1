"""Operations: probes, metrics, request logs, rate limits, proxies and body limits."""
import json
import logging
from datetime import UTC

import pytest
from pymongo.errors import ServerSelectionTimeoutError

from app import create_app
from app.database import get_db
from tests.conftest import PASSWORD, add_users, settings
from tests.http import FlaskClient, assert_problem


def test_probes_need_no_credentials(api):
    assert api.get("/healthz").status == 200
    ready = api.get("/readyz")
    assert ready.status == 200 and ready.json == {"status": "ready"}


def test_readyz_is_503_while_the_database_is_away(app, api, monkeypatch):
    def unreachable(*args, **kwargs):
        raise ServerSelectionTimeoutError("no servers")
    with app.app_context():
        monkeypatch.setattr(type(get_db()), "command", unreachable)
    r = api.get("/readyz")
    assert_problem(r, 503)
    assert r.headers["retry-after"] == "2"
    assert api.get("/healthz").status == 200  # the process still serves


def test_metrics_count_requests_by_route_and_status(api):
    api.post("/profiles", json={}, user="alice")
    api.get("/profiles/" + "0" * 24, user="alice")
    text = api.get("/metrics").body.decode()
    assert 'http_requests_total{method="POST",route="/profiles",status="201"}' in text
    assert 'http_requests_total{method="GET",route="/profiles/<id>",status="404"}' in text
    assert 'http_request_duration_seconds_bucket{le="0.005",method="POST",route="/profiles",status="201"}' in text


def test_metrics_count_database_errors(app, api, monkeypatch):
    with app.app_context():
        monkeypatch.setattr(type(get_db()), "command", lambda *a, **k: (_ for _ in ()).throw(
            ServerSelectionTimeoutError("down")))
    api.get("/readyz")
    assert 'database_errors_total{error="ServerSelectionTimeoutError"}' in api.get("/metrics").body.decode()


def test_one_json_line_per_request_without_secrets(api, caplog):
    token = api.post("/tokens", user="alice").json["token"]
    with caplog.at_level(logging.INFO):
        api.post("/profiles", json={"name": "logged"}, user="alice", headers={"X-Request-ID": "trace-me"})
        api.get("/users/me", headers={"Authorization": f"Bearer {token}"})
        api.get("/users/me", user="alice", password="a wrong password")
    lines = [r for r in caplog.records if r.name == "app.access"]
    assert [(r.method, r.route, r.status, r.user) for r in lines] == [
        ("POST", "/profiles", 201, "alice"), ("GET", "/users/me", 200, "alice"), ("GET", "/users/me", 401, None)]
    assert lines[0].request_id == "trace-me" and lines[0].duration_ms >= 0
    everything = caplog.text + "".join(json.dumps(r.__dict__, default=str) for r in caplog.records)
    assert PASSWORD not in everything and token not in everything and "a wrong password" not in everything


def test_the_rate_limit_is_per_user(app, api):
    app.config["RATE_LIMIT"] = "3 per minute"
    assert [api.get("/users/me", user="alice").status for _ in range(3)] == [200] * 3
    limited = api.get("/users/me", user="alice")
    assert_problem(limited, 429)
    assert 1 <= int(limited.headers["retry-after"]) <= 61  # the end of the 60 s window, rounded up
    assert api.get("/users/me", user="bob").status == 200
    assert "retry-after" not in api.get("/users/me", user="bob").headers


def test_rate_limit_counters_live_in_mongodb(mongo_server):
    app = create_app(settings(MONGO_URI=mongo_server.uri, MONGO_DB="ratelimits", RATE_LIMIT="2 per minute"))
    add_users(app)
    first, second = FlaskClient(app), FlaskClient(create_app(app.config))  # another worker, same database
    assert first.get("/users/me", user="carol").status == 200
    assert second.get("/users/me", user="carol").status == 200
    assert_problem(first.get("/users/me", user="carol"), 429)
    assert_problem(second.get("/users/me", user="carol"), 429)


@pytest.mark.parametrize("workers, limit, requests", [(2, 10, 40), (3, 200, 600), (4, 9000, 9500)])
def test_shares_never_exceed_the_limit_and_spend_it_all(app, workers, limit, requests):
    """Processes reserving shares of one window, taking turns: together they admit exactly
    `limit` requests (a share is at most 64 and shrinks as the window runs out)."""
    from limits import parse

    from app.ratelimit import Quotas

    quotas, item = [Quotas() for _ in range(workers)], parse(f"{limit} per hour")
    with app.app_context():
        admitted = sum(not quotas[i % workers].take("user:x", item) for i in range(requests))
        counted = get_db().rate_limits.find_one({"_id": "user:x"})["count"]
    assert admitted == limit and counted >= limit


def test_a_busy_user_costs_one_counter_update_per_64_requests(app, monkeypatch):
    from limits import parse

    from app import ratelimit

    calls = []
    real = ratelimit.count_in_window
    monkeypatch.setattr(ratelimit, "count_in_window", lambda *a: calls.append(a[-1]) or real(*a))
    quotas = ratelimit.Quotas()
    with app.app_context():
        assert not any(quotas.take("user:busy", parse("100000 per hour")) for _ in range(640))
    assert calls == [64] * 10


def test_count_in_window_opens_one_window_at_a_time(app):
    from datetime import datetime, timedelta

    from app.database import count_in_window

    with app.app_context():
        counters = get_db().rate_limits
        window = timedelta(seconds=60)
        assert [count_in_window(counters, "k", window)[0] for _ in range(3)] == [1, 2, 3]
        assert count_in_window(counters, "k", window, amount=5)[0] == 8
        counters.update_one({"_id": "k"}, {"$set": {"expireAt": datetime(2000, 1, 1, tzinfo=UTC)}})
        count, ends = count_in_window(counters, "k", window)
        assert count == 1 and 59 < (ends - datetime.now(UTC)).total_seconds() <= 60  # a new window


@pytest.mark.parametrize("hops, expected", [(0, "127.0.0.1"), (1, "203.0.113.7")])
def test_forwarded_for_is_believed_only_from_trusted_proxies(hops, expected, caplog):
    import mongomock

    app = create_app(settings(TRUSTED_PROXIES=hops), mongo_client=mongomock.MongoClient(tz_aware=True))
    add_users(app)
    with caplog.at_level(logging.INFO):
        FlaskClient(app).get("/users/me", user="alice", headers={"X-Forwarded-For": "203.0.113.7"})
    assert [r.remote_addr for r in caplog.records if r.name == "app.access"] == [expected]


def test_deep_json_is_refused(api):
    body = '{"name": ' + "[" * 40 + "]" * 40 + "}"
    problem = assert_problem(api.post("/profiles", data=body, headers={"Content-Type": "application/json"},
                                      user="alice"), 400)
    assert "nested deeper" in problem["detail"]



"""Operations: probes, metrics, request logs and trusted proxies."""

import json
import logging
import re

import pytest
from pymongo.errors import ServerSelectionTimeoutError

from app import ops
from app.blueprints.storage import store as blueprint_store
from app.storage.database import get_db
from support.apps import make_app
from support.http import PASSWORD, FlaskClient, assert_problem


def unreachable(*args, **kwargs):
    raise ServerSelectionTimeoutError("127.0.0.1:1: connection refused")


def test_probes_need_no_credentials(api):
    assert api.get("/healthz").status == 200
    ready = api.get("/readyz")
    assert ready.status == 200 and ready.json == {"status": "ready"}


def test_readyz_is_503_while_the_database_is_away(app, api, monkeypatch):
    with app.app_context():
        monkeypatch.setattr(type(get_db()), "command", unreachable)
    r = api.get("/readyz")
    assert_problem(r, 503)
    assert r.headers["retry-after"] == "2"
    assert api.get("/healthz").status == 200  # the process still serves


def sample(api, name, **labels):
    """The value of one sample on /metrics (0 when it is not there yet)."""
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    match = re.search(rf"^{name}\{{{re.escape(wanted)}\}} (\S+)$", api.get("/metrics").body.decode(), re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def test_metrics_count_requests_by_route_and_status(api):
    created = {"method": "POST", "route": "/profiles", "status": "201"}
    missing = {"method": "GET", "route": "/profiles/<id>", "status": "404"}
    before = [sample(api, "http_requests_total", **created), sample(api, "http_requests_total", **missing)]
    fast = sample(api, "http_request_duration_seconds_bucket", le="10.0", **created)
    for _ in range(3):
        api.post("/profiles", json={}, user="alice")
    api.get("/profiles/" + "0" * 24, user="alice")
    after = [sample(api, "http_requests_total", **created), sample(api, "http_requests_total", **missing)]
    assert [a - b for a, b in zip(after, before, strict=True)] == [3, 1]
    assert sample(api, "http_request_duration_seconds_bucket", le="10.0", **created) - fast == 3


def test_a_method_of_the_clients_own_adds_no_label_value(api):
    """Label values stay few whatever a client sends: a method HTTP does not define is "other"."""
    other = {"method": "other", "route": "unmatched", "status": "405"}
    before = sample(api, "http_requests_total", **other)
    for method in ("BREW", "PROPFIND"):
        assert api.request(method, "/profiles", user="alice").status == 405
    assert sample(api, "http_requests_total", **other) - before == 2
    assert "BREW" not in api.get("/metrics").body.decode()


@pytest.mark.parametrize("path", ["/readyz", "/blueprints"])
def test_every_database_failure_is_counted(app, api, monkeypatch, path):
    """The probe's ping and a request's own database call alike."""
    with app.app_context():
        monkeypatch.setattr(type(get_db()), "command", unreachable)
    monkeypatch.setattr(blueprint_store, "create", unreachable)
    before = sample(api, "database_errors_total", error="ServerSelectionTimeoutError")
    r = api.get(path) if path == "/readyz" else api.post(path, json={}, user="alice")
    assert_problem(r, 503)
    assert sample(api, "database_errors_total", error="ServerSelectionTimeoutError") - before == 1


def test_one_json_line_per_request_without_secrets(api, caplog):
    token = api.post("/tokens", user="alice").json["token"]
    with caplog.at_level(logging.INFO):
        api.post("/profiles", json={"name": "logged"}, user="alice", headers={"X-Request-ID": "trace-me"})
        api.get("/users/me", headers={"Authorization": f"Bearer {token}"})
        api.get("/users/me", user="alice", password="a wrong password")
    lines = [r for r in caplog.records if r.name == "app.requests"]
    assert [(r.method, r.route, r.status, r.user) for r in lines] == [
        ("POST", "/profiles", 201, "alice"),
        ("GET", "/users/me", 200, "alice"),
        ("GET", "/users/me", 401, None),
    ]
    assert lines[0].request_id == "trace-me"
    everything = caplog.text + "".join(json.dumps(r.__dict__, default=str) for r in caplog.records)
    assert PASSWORD not in everything and token not in everything and "a wrong password" not in everything


def test_the_logged_duration_is_the_time_the_request_took(monkeypatch, caplog):
    """The clock reads 10.0 s when the request starts and 10.25 s when its response is ready."""
    readings = iter([10.0, 10.25])
    monkeypatch.setattr(ops, "clock", lambda: next(readings))
    api = FlaskClient(make_app("mongomock"))
    with caplog.at_level(logging.INFO):
        assert api.get("/healthz").status == 200
    [line] = [r for r in caplog.records if r.name == "app.requests"]
    assert line.duration_ms == 250.0


@pytest.mark.parametrize("hops, expected", [(0, "127.0.0.1"), (1, "203.0.113.7")])
def test_forwarded_for_is_believed_only_from_trusted_proxies(hops, expected, caplog):
    api = FlaskClient(make_app("mongomock", TRUSTED_PROXIES=hops))
    with caplog.at_level(logging.INFO):
        api.get("/users/me", user="alice", headers={"X-Forwarded-For": "203.0.113.7"})
    assert [r.remote_addr for r in caplog.records if r.name == "app.requests"] == [expected]

"""The service as operators run it: gunicorn with gunicorn.conf.py, the embedded database started
by the master under DATA_DIR and stopped on exit, data kept across restarts, metrics summed over
workers, JSON logs, and the request-line limit answered with problem bodies."""

import http.client
import json
import os
import re
import stat
import time
from urllib.parse import quote

import pytest

from support.http import SocketClient, basic
from support.processes import Gunicorn

ADMIN = ("admin", "change-me-now")
AUTH = {"Authorization": basic(*ADMIN)}
pytestmark = pytest.mark.slow


def service(tmp_path, **kwargs):
    return Gunicorn(
        DATA_DIR=tmp_path / "data", ADMIN_USERNAME=ADMIN[0], ADMIN_PASSWORD=ADMIN[1], WEB_CONCURRENCY=2, **kwargs
    )


def database_pid(gunicorn, uri_file):
    """The embedded database: the master's child that serves the port in the URI file."""
    port_arg = b"\0--port\0" + uri_file.read_text().split(":")[2].split("/")[0].encode() + b"\0"
    return next(pid for pid, cmdline in gunicorn.children() if port_arg in cmdline)


def test_data_survives_a_restart_and_the_database_stops_with_the_service(tmp_path):
    gunicorn = service(tmp_path).start()
    try:
        client = SocketClient(gunicorn.port)
        r = client.post("/profiles", json={"name": "kept", "memoryCap": "2Gi"}, headers=AUTH)
        assert r.status == 201
        created, location = r.json, r.headers["location"]
        assert client.post("/profiles", json={}).status == 401
        database = database_pid(gunicorn, tmp_path / "data" / "embedded-mongo.uri")
    finally:
        assert gunicorn.stop() == 0
    with pytest.raises(ProcessLookupError):  # stopped with the master, not left behind
        for _ in range(100):
            os.kill(database, 0)
            time.sleep(0.1)

    gunicorn.start()
    try:
        r = SocketClient(gunicorn.port).get(location, headers=AUTH)
        assert r.status == 200 and r.json == created
    finally:
        assert gunicorn.stop() == 0


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """One service for the tests below, its stderr in a file."""
    tmp_path = tmp_path_factory.mktemp("service")
    log_path = tmp_path / "service.log"
    with open(log_path, "wb") as log_file:
        gunicorn = service(tmp_path, stderr=log_file).start()
        gunicorn.log_path = log_path
        yield gunicorn
        gunicorn.stop()


def test_two_services_whose_data_directories_are_siblings_never_share_a_database(tmp_path):
    """The URI file was written beside DATA_DIR, so the second of two sibling directories found
    the first's server and silently served its data; both masters' control sockets were one, in
    the caller's home."""
    home = tmp_path.parent / f"{tmp_path.name}-home"
    home.mkdir()
    first, second = (
        Gunicorn(
            DATA_DIR=tmp_path / name, ADMIN_USERNAME=ADMIN[0], ADMIN_PASSWORD=ADMIN[1], WEB_CONCURRENCY=1, HOME=home
        )
        for name in ("one", "two")
    )
    first.start()
    try:
        assert SocketClient(first.port).post("/profiles", json={"name": "first's"}, headers=AUTH).status == 201
        (tmp_path / "two").mkdir()  # a stale URI file naming the first's server, as a copied directory has
        (tmp_path / "two" / "embedded-mongo.uri").write_text((tmp_path / "one" / "embedded-mongo.uri").read_text())
        second.start()
        try:
            assert SocketClient(second.port).get("/profiles", headers=AUTH).json["items"] == []
            assert sorted(os.listdir(tmp_path)) == ["one", "two"]  # nothing written beside them
            # each master's control socket under its own data directory, none in the caller's home
            assert all(stat.S_ISSOCK((tmp_path / name / "gunicorn.ctl").stat().st_mode) for name in ("one", "two"))
            assert not (home / ".gunicorn").exists()
        finally:
            assert second.stop() == 0
    finally:
        assert first.stop() == 0


def test_metrics_add_up_across_workers_and_logs_are_json(running):
    for _ in range(30):  # spread over both workers by the kernel
        assert SocketClient(running.port).post("/profiles", json={}, headers=AUTH).status == 201
    metrics = SocketClient(running.port).get("/metrics")
    assert metrics.status == 200
    samples = re.findall(
        r'^http_requests_total\{method="POST",route="/profiles",status="201"\} (\S+)$',
        metrics.body.decode(),
        re.MULTILINE,
    )
    assert [float(n) for n in samples] == [30.0]
    lines = [json.loads(line) for line in running.log_path.read_text().splitlines() if line.strip()]
    posts = [line for line in lines if line.get("logger") == "app.requests" and line["method"] == "POST"]
    assert len(posts) == 30
    assert {(line["route"], line["status"], line["user"]) for line in posts} == {("/profiles", 201, "admin")}
    assert {line["logger"] for line in lines} >= {"app.requests", "gunicorn.error"}
    assert "gunicorn.access" not in {line["logger"] for line in lines}  # one line per request, the app's
    assert ADMIN[1] not in running.log_path.read_text()


def test_the_longest_list_query_the_parameters_allow_is_served(running):
    client = SocketClient(running.port)
    for _ in range(2):
        assert client.post("/blueprints", json={"entitlementType": "CUSTOM"}, headers=AUTH).status == 201
    cursor = client.get("/blueprints?limit=1", headers=AUTH).json["next"]
    longest = quote("\U00010348" * 200)  # 200 characters of four UTF-8 bytes each
    path = (
        f"/blueprints?name={longest}&q={longest}&owner={'o' * 64}&blueprintType={'t' * 64}"
        f"&entitlementType=CUSTOM&inactive=false&limit=200&cursor={cursor}"
    )
    assert len(f"GET {path} HTTP/1.1") > 4094  # gunicorn's default limit
    r = client.get(path, headers=AUTH)
    assert r.status == 200 and r.json == {"items": [], "next": None}


@pytest.mark.parametrize(
    "path, headers, status",
    [
        ("/blueprints?q=" + "a" * 8200, {}, 414),
        ("/blueprints", {"X-Padding": "x" * 9000}, 431),
    ],
)
def test_what_gunicorn_refuses_is_a_problem_body(running, path, headers, status):
    r = SocketClient(running.port).get(path, headers={**AUTH, **headers})
    assert r.status == status
    assert r.headers["content-type"] == "application/problem+json"
    assert r.headers["api-version"] == "1.0.0"
    body = r.json
    assert body["status"] == status and body["detail"] and body["requestId"] == r.headers["x-request-id"]
    assert "a" * 100 not in running.log_path.read_text()  # the request line is not logged


def test_sequential_creates_over_several_workers_list_newest_first(running):
    """Each create is sent after the previous one's response, over new connections that the
    kernel spreads over both workers; the list is their exact reverse."""
    client = SocketClient(running.port)
    made = [client.post("/blueprints", json={"name": "in-order"}, headers=AUTH).json["id"] for _ in range(60)]
    listed = client.get("/blueprints?name=in-order&limit=200", headers=AUTH).json["items"]
    assert [item["id"] for item in listed] == made[::-1]


def test_gunicorn_believes_no_forwarded_header_when_no_proxy_is_trusted(running):
    """gunicorn believes the forwarded headers (the path prefix among them) from loopback by
    default, whatever TRUSTED_PROXIES says; it is the app's ProxyFix that decides."""
    conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
    try:
        conn.putrequest("GET", "/openapi.json")
        conn.putheader("SCRIPT_NAME", "/evil")  # gunicorn's forwarder header, from an address it allowed
        conn.putheader("X-Forwarded-Prefix", "/evil")
        conn.endheaders()
        document = json.loads(conn.getresponse().read())
    finally:
        conn.close()
    assert document["servers"] == [{"url": "/"}]


def test_a_request_past_the_time_limit_is_a_problem_with_retry_after_and_the_service_goes_on(tmp_path):
    """gunicorn aborted the worker and answered its own text/html 500."""
    gunicorn = Gunicorn(app="support.sleeper:app", DATA_DIR=tmp_path / "data", REQUEST_TIMEOUT=2, WEB_CONCURRENCY=1)
    gunicorn.start()
    try:
        r = SocketClient(gunicorn.port).get("/slow")
        assert r.status == 503 and r.headers["content-type"] == "application/problem+json"
        assert r.headers["retry-after"] == "5" and "time limit" in r.json["detail"]
        assert r.json["requestId"] == r.headers["x-request-id"]
        assert SocketClient(gunicorn.port).get("/other").status == 200  # a new worker serves
    finally:
        assert gunicorn.stop() == 0

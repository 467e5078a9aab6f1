"""The database goes away and comes back; the database and the service are killed under load."""

import os
import signal
import time

import pytest

from app import create_app
from app.storage import embedded
from bench import fault
from support import compose_oracle
from support.apps import add_users, serving, settings
from support.http import SocketClient, assert_problem
from support.ports import free_port

pytestmark = pytest.mark.slow


@pytest.fixture
def database(tmp_path):
    """A SecantusDB process of its own, which a test may kill and start again on the same port."""
    data, port = str(tmp_path / "data"), free_port()
    process, uri = embedded.launch(data, port)
    state = {"process": process, "uri": uri}
    state["restart"] = lambda: state.update(process=embedded.launch(data, port)[0])
    yield state
    state["process"].kill()
    state["process"].wait()


def kill(process):
    os.kill(process.pid, signal.SIGKILL)
    process.wait()


def wait_for(api, path, status, seconds=30):
    """Poll until `path` answers `status`; how long it took."""
    started = time.monotonic()
    while api.get(path, user="alice").status != status:
        assert time.monotonic() - started < seconds, f"{path} never answered {status}"
        time.sleep(0.1)
    return time.monotonic() - started


def test_an_outage_is_503_and_the_service_recovers_by_itself(database):
    app = create_app(settings(MONGO_URI=database["uri"], MONGO_DB="outage"))
    add_users(app)
    with serving(app) as port:
        api = SocketClient(port)
        created = api.post("/profiles", json={"name": "kept"}, user="alice").json
        kill(database["process"])

        started = time.monotonic()
        down = api.post("/profiles", json={}, user="alice")
        answered_in = time.monotonic() - started
        assert_problem(down, 503)
        assert down.headers["retry-after"] == "2" and b"127.0.0.1" not in down.body
        assert answered_in < 10  # MONGO_TIMEOUT_MS is 1 s; pymongo's default would be 30 s
        assert_problem(api.get("/readyz"), 503)
        assert api.get("/healthz").status == 200

        database["restart"]()
        recovered_in = wait_for(api, f"/profiles/{created['id']}", 200)
        assert recovered_in < 15  # generous for a shared machine; about 1 s here
        assert api.get("/readyz").status == 200
        assert api.get(f"/profiles/{created['id']}", user="alice").json == created  # kill -9 lost nothing


def test_the_service_starts_while_the_database_is_away(tmp_path):
    data, port = str(tmp_path / "data"), free_port()
    uri = f"mongodb://127.0.0.1:{port}/?directConnection=true"
    app = create_app(settings(MONGO_URI=uri, MONGO_DB="late", ADMIN_USERNAME="admin", ADMIN_PASSWORD="an admin pw"))
    with serving(app) as port_:
        api = SocketClient(port_)
        assert_problem(api.get("/users/me", user="admin", password="an admin pw"), 503)
        process, _ = embedded.launch(data, port)
        try:
            wait_for(SocketClient(port_), "/readyz", 200)
            assert api.get("/users/me", user="admin", password="an admin pw").json["role"] == "admin"
        finally:
            process.kill()
            process.wait()


def test_kill_9_under_load_loses_no_acknowledged_write_and_retries_make_no_duplicates():
    report = fault.run(seconds_before=2.0, seconds_down=2.0, writers=3, log=lambda line: None)
    assert report["acknowledged"] > 0 and report["unanswered_retried"] > 0
    assert report["lost"] == 0 and report["duplicates"] == 0 and report["missing_after_retry"] == 0
    assert report["documents"] == report["acknowledged"] + report["unanswered_retried"]


def test_kill_9_under_concurrent_changes_loses_no_earlier_version():
    report = fault.history_run(seconds_before=2.0, writers=3, log=lambda line: None)
    assert report["acknowledged_changes"] > 0 and report["versions_checked"] >= report["acknowledged_changes"]
    assert report["missing_versions"] == 0 and report["acknowledged_but_lost"] == 0


def test_kill_9_under_admissions_leaves_usage_the_sum_of_the_instances():
    report = fault.usage_run(seconds_before=1.5, writers=3, log=lambda line: None)
    assert report["answers"].get(201) and report["usage_is_the_sum"], report
    assert report["acknowledged_but_lost"] == 0 and report["ledger_left"] == 0, report
    assert report["deletes_said_undone_but_done"] == 0, report
    for text in report["definitions"]:  # each distinct rendered definition, as Docker Compose reads it
        accepted, project = compose_oracle.config(text)
        assert accepted, project


def test_kill_9_in_the_middle_of_an_upgrade_of_many_leaves_usage_the_sum_and_the_rest_upgrades():
    report = fault.fleet_run(count=200, log=lambda line: None)
    assert report["job_after_kill"] == "failed" and 0 < report["upgraded_before_kill"] < report["instances"]
    assert report["usage_is_the_sum_after_kill"] and report["usage_is_the_sum_after"]
    assert report["rest"] == "done" and report["upgraded_after"] == report["instances"]
    assert report["upgraded_by_the_rest"] == report["instances"] - report["upgraded_before_kill"]
    assert report["ledger_left"] == 0

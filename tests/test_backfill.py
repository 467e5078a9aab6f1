"""Blueprints stored before `keys` existed: listed in full while their keys are written in the
background, then found by their keys alone; one process writes at a time."""

import threading

import pytest

from app.blueprints.storage import store
from app.storage import backfill
from app.storage.database import get_db
from support.lists import seed_spread, walk


@pytest.fixture
def lease(app, monkeypatch):
    """Another process holds the lease until the test sets this event: until then this process's
    backfill thread only looks (mongomock takes no concurrent writes); the thread ends with the
    test, whatever its outcome."""
    released, take_lease = threading.Event(), backfill._take_lease
    monkeypatch.setattr(backfill, "_take_lease", lambda store: released.is_set() and take_lease(store))
    monkeypatch.setattr(backfill, "RETRY_SECONDS", 0.01)
    yield released
    released.set()
    app.extensions["backfill"]["blueprints"]["thread"].join(timeout=30)


def test_blueprints_without_keys_are_listed_until_and_after_the_backfill(app, api, lease):
    made = seed_spread(app, 25, keys=False)
    own = api.post("/blueprints", json={"name": "spread new", "tags": ["fresh"]}, user="alice").json["id"]
    backfill.start(app, store)
    with app.app_context():
        assert backfill.pending(store)
    assert [item["id"] for item in walk(api, "/blueprints?limit=4")] == [own, *made]
    assert [item["id"] for item in walk(api, "/blueprints?q=spread1&limit=3")] == made[5:15] + [made[23]]
    assert [item["name"] for item in walk(api, "/blueprints?name=spread3")] == ["spread3"]
    assert walk(api, "/blueprints?name=spread3", user="bob") == []  # readability still holds

    lease.set()  # this process's thread writes the keys now
    app.extensions["backfill"]["blueprints"]["thread"].join(timeout=30)
    with app.app_context():
        assert get_db().blueprints.find_one({"keys": None}) is None
        assert not backfill.pending(store)
    assert [item["id"] for item in walk(api, "/blueprints?limit=7")] == [own, *made]
    assert [item["name"] for item in walk(api, "/blueprints?name=spread3")] == ["spread3"]


def test_one_process_holds_the_lease_until_it_lapses(app):
    with app.app_context():
        assert backfill._take_lease(store)
        assert not backfill._take_lease(store)
        lapsed = backfill.now() - backfill.LEASE
        get_db().settings.update_one({"_id": "backfill:blueprints"}, {"$set": {"until": lapsed}})
        assert backfill._take_lease(store)


def test_a_change_made_meanwhile_keeps_its_own_keys(app, api):
    (made,) = seed_spread(app, 1, keys=False)
    api.patch(f"/blueprints/{made}", json={"name": "renamed"}, user="alice")
    with app.app_context():
        assert backfill.run(store) == 0  # the change wrote its keys: nothing left to do
    assert [item["name"] for item in walk(api, "/blueprints?name=renamed")] == ["renamed"]
    assert walk(api, "/blueprints?name=spread0") == []


def test_a_process_started_on_blueprints_without_keys_writes_them_in_the_background(app, api):
    from app import create_app

    made = seed_spread(app, 12, keys=False)
    restarted = create_app(dict(app.config), mongo_client=app.extensions["mongo"].client)
    restarted.extensions["backfill"]["blueprints"]["thread"].join(timeout=30)
    with restarted.app_context():
        assert not backfill.pending(store)
        assert get_db().blueprints.find_one({"keys": None}) is None
    assert [item["id"] for item in walk(api, "/blueprints?limit=5")] == made


def test_a_failing_database_only_delays_the_backfill(app, api, monkeypatch):
    from pymongo.errors import NetworkTimeout

    from app import create_app

    made = seed_spread(app, 3, keys=False)
    failures = iter([NetworkTimeout("timed out"), NetworkTimeout("timed out")])
    take_lease = backfill._take_lease

    def flaky(store):
        failure = next(failures, None)
        if failure:
            raise failure
        return take_lease(store)

    monkeypatch.setattr(backfill, "_take_lease", flaky)
    monkeypatch.setattr(backfill, "RETRY_SECONDS", 0.01)
    restarted = create_app(dict(app.config), mongo_client=app.extensions["mongo"].client)
    restarted.extensions["backfill"]["blueprints"]["thread"].join(timeout=30)
    with restarted.app_context():
        assert not backfill.pending(store)
    assert [item["name"] for item in walk(api, "/blueprints?name=spread1")] == ["spread1"]
    assert [item["id"] for item in walk(api, "/blueprints?limit=2")] == made

"""Idempotency-Key on POST: retries return the first response and never create twice."""

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from app.http import idempotency
from app.storage.database import get_db
from support.http import assert_problem


def post(api, collection="blueprints", key="key-1", user="alice", **fields):
    return api.post(f"/{collection}", json=fields, user=user, headers={"Idempotency-Key": key})


def count(app, collection="blueprints"):
    with app.app_context():
        return get_db()[collection].count_documents({})


def test_a_retry_returns_the_first_response(api, app):
    first = post(api, name="web")
    again = post(api, name="web")
    assert first.status == again.status == 201
    assert again.json == first.json
    assert again.headers["location"] == first.headers["location"]
    assert again.headers["etag"] == first.headers["etag"]
    assert again.headers["idempotent-replayed"] == "true" and "idempotent-replayed" not in first.headers
    assert count(app) == 1


def test_the_same_json_in_another_spelling_is_the_same_body(api, app):
    first = api.post(
        "/profiles",
        data='{"name": "p", "cpuCap": "1"}',
        user="alice",
        headers={"Content-Type": "application/json", "Idempotency-Key": "k"},
    )
    again = api.post(
        "/profiles",
        data='{"cpuCap":"1","name":"p"}',
        user="alice",
        headers={"Content-Type": "application/json", "Idempotency-Key": "k"},
    )
    assert again.json["id"] == first.json["id"] and count(app, "profiles") == 1


def test_the_same_key_with_another_body_is_422(api, app):
    post(api, name="web")
    problem = assert_problem(post(api, name="other"), 422)
    assert "Idempotency-Key" in problem["errors"]
    assert count(app) == 1


def test_keys_are_scoped_to_user_and_collection(api, app):
    ids = {
        post(api, name="x").json["id"],
        post(api, user="bob", name="x").json["id"],
        post(api, collection="profiles", name="x").json["id"],
    }
    assert len(ids) == 3


@pytest.mark.parametrize("key", ["x" * 256, "tab\there", "caf\u00e9"])
def test_bad_keys_are_422(api, key):
    r = api.post("/blueprints", json={}, user="alice", headers={"Idempotency-Key": key})
    assert "Idempotency-Key" in assert_problem(r, 422)["errors"]


def test_a_failed_first_attempt_does_not_hold_the_key(api, app):
    bad = post(api, entitlementType="CUSTOM", entitledUsers=["ghost77"])
    assert bad.status == 422
    good = post(api, entitlementType="CUSTOM", entitledUsers=["bob"])
    assert good.status == 201 and count(app) == 1


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the dying server thread
def test_a_retry_after_a_crash_finds_what_the_dead_request_made(api, app, monkeypatch):
    """The first request creates the resource, then dies before recording its response."""

    def die(*args):
        raise SystemExit("worker killed")

    monkeypatch.setattr(idempotency, "_finish", die)
    with pytest.raises((SystemExit, ConnectionError)):  # over a socket: the connection drops
        post(api, name="survivor")
    monkeypatch.undo()
    assert count(app) == 1

    in_flight = post(api, name="survivor")
    assert_problem(in_flight, 409)
    assert in_flight.headers["retry-after"] == idempotency.RETRY_AFTER

    with app.app_context():  # the dead request's lease runs out
        get_db().idempotency.update_many({}, {"$set": {"leaseUntil": datetime(2000, 1, 1, tzinfo=UTC)}})
    retried = post(api, name="survivor")
    assert retried.status == 201 and retried.json["name"] == "survivor"
    assert count(app) == 1
    assert post(api, name="survivor").json["id"] == retried.json["id"]


@pytest.mark.parametrize("app", ["socket"], indirect=True)
def test_concurrent_requests_with_one_key_create_one_resource(api, app):
    with ThreadPoolExecutor(max_workers=10) as pool:
        responses = list(pool.map(lambda i: post(api, key="burst", name="once"), range(10)))
    created = [r for r in responses if r.status == 201]
    assert created and {r.json["id"] for r in created} == {created[0].json["id"]}
    assert all(r.status in (201, 409) for r in responses)
    assert all(r.headers["retry-after"] for r in responses if r.status == 409)
    assert count(app) == 1


def test_records_expire_after_24_hours(app):
    with app.app_context():
        index = get_db().idempotency.index_information()["forget_after_24h"]
    assert index["expireAfterSeconds"] == 24 * 3600

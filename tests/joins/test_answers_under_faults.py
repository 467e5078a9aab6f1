"""What a create, an upgrade and a delete of an instance answer when the database goes away in their
middle: what took place, never less or other (app/joins/outcomes.py). The connection breaks after
the instance's write was made, before it was made, or for good; and after the write, while what
follows it (the reservation's settling, the holds let go) is written. Usage ends the sum of the
instances once the ledger's lease has passed, whatever was answered."""

from datetime import timedelta

import pytest

from app.storage.database import now
from support.apps import make_app
from support.faults import Breaking
from support.http import FlaskClient, assert_problem, create

TEMPLATE = "services:\n  web:\n    image: nginx:1.27\n    deploy:\n      replicas: ${REPLICAS}\n"
PARAMETERS = {"type": "object", "properties": {"REPLICAS": {"type": "integer", "default": 1, "maximum": 5}}}
ONE = {"memoryBytes": 64 * 1024**2, "cpuMillis": 100, "containers": 1, "storageBytes": 0}


@pytest.fixture
def app():
    return make_app("mongomock", REQUEST_TIMEOUT=3)  # a decisive write's outcome is asked for 1 s


@pytest.fixture
def api(app):
    return FlaskClient(app)


@pytest.fixture
def made(api):
    blueprint = create(api, "blueprints", name="web", blueprintType="compose", yml=TEMPLATE, parameters=PARAMETERS)
    profile = create(api, "profiles", name="team", containerDefaults={"memory": "64Mi", "cpu": "100m"}).json
    return blueprint.json, profile


def deploy(api, made, name="shop", **headers):
    blueprint, profile = made
    body = {"name": name, "blueprint": blueprint["id"], "profile": profile["id"]}
    return api.post("/instances", json=body, user="alice", headers=headers)


def usage_once_settled(api, profile, monkeypatch):
    """The profile's usage once every ledger entry's lease has passed (the clock moved on an hour)."""
    later = now() + timedelta(hours=1)
    monkeypatch.setattr("app.profiles.storage.now", lambda: later)
    used = api.get(f"/profiles/{profile['id']}", user="alice").json["usage"]
    return {key: used[key] for key in (*ONE, "instances")}


def times(count, instances=None):
    """`count` containers' usage, in `instances` instances (as many as containers where not given)."""
    return {
        **{key: value * count for key, value in ONE.items()},
        "instances": count if instances is None else instances,
    }


def test_a_delete_made_whose_answer_was_lost_answers_204(api, app, made, monkeypatch):
    shop = deploy(api, made).json
    Breaking(app, "instances").break_after("delete_one")
    assert api.delete(f"/instances/{shop['id']}", user="alice").status == 204
    assert api.get(f"/instances/{shop['id']}", user="alice").status == 404
    assert usage_once_settled(api, made[1], monkeypatch) == times(0)


def test_a_delete_never_made_says_so_and_is_made_when_sent_again(api, app, made, monkeypatch):
    shop = deploy(api, made).json
    Breaking(app, "instances").break_before("delete_one")
    refused = api.delete(f"/instances/{shop['id']}", user="alice")
    assert_problem(refused, 503)
    assert "did not take place" in refused.json["detail"] and refused.headers["retry-after"] == "2"
    assert api.get(f"/instances/{shop['id']}", user="alice").status == 200
    assert usage_once_settled(api, made[1], monkeypatch) == times(1)
    assert api.delete(f"/instances/{shop['id']}", user="alice").status == 204


def test_a_delete_made_then_the_database_away_for_what_follows_answers_204(api, app, made, monkeypatch):
    shop = deploy(api, made).json
    instances, ledgers, hosts = Breaking(app, "instances"), Breaking(app, "ledgers"), Breaking(app, "hosts")

    def away():  # from the delete made on, the settling and the holds let go fail
        ledgers.away = hosts.away = True

    instances.break_after("delete_one", then=away)
    assert api.delete(f"/instances/{shop['id']}", user="alice").status == 204
    ledgers.away = hosts.away = False
    assert api.get(f"/instances/{shop['id']}", user="alice").status == 404
    assert usage_once_settled(api, made[1], monkeypatch) == times(0)


def test_a_write_the_database_never_answers_for_is_a_503_saying_nobody_knows(api, app, made, monkeypatch):
    shop = deploy(api, made).json
    instances = Breaking(app, "instances")
    instances.break_after("delete_one", then=lambda: setattr(instances, "away", True))  # reads of it fail too

    def gone_for_good(*args, **kwargs):
        raise AssertionError("an undecided write's reservation is never taken back: its lease concludes it")

    monkeypatch.setattr("app.profiles.storage.Profiles.take_back", gone_for_good)
    undecided = api.delete(f"/instances/{shop['id']}", user="alice")
    assert_problem(undecided, 503)
    assert "not known" in undecided.json["detail"] and "Read the instance" in undecided.json["detail"]
    instances.away = False
    assert api.get(f"/instances/{shop['id']}", user="alice").status == 404  # it was made, as read now
    monkeypatch.undo()
    assert usage_once_settled(api, made[1], monkeypatch) == times(0)


def test_a_create_made_whose_answer_was_lost_answers_201(api, app, made, monkeypatch):
    Breaking(app, "instances").break_after("insert_one")
    created = deploy(api, made)
    assert created.status == 201, created.json
    assert api.get(f"/instances/{created.json['id']}", user="alice").json["name"] == "shop"
    assert usage_once_settled(api, made[1], monkeypatch) == times(1)


def test_a_create_never_made_says_so_and_its_name_and_room_stay_free(api, app, made, monkeypatch):
    Breaking(app, "instances").break_before("insert_one")
    refused = deploy(api, made)
    assert_problem(refused, 503)
    assert "create did not take place" in refused.json["detail"]
    assert api.get("/instances", user="alice").json["items"] == []
    assert deploy(api, made).status == 201
    assert usage_once_settled(api, made[1], monkeypatch) == times(1)


def test_an_undecided_create_keeps_its_idempotency_key_so_a_retry_finds_what_it_made(api, app, made, monkeypatch):
    instances = Breaking(app, "instances")
    instances.break_after("insert_one", then=lambda: setattr(instances, "away", True))
    assert_problem(deploy(api, made, **{"Idempotency-Key": "k1"}), 503)
    instances.away = False
    assert_problem(deploy(api, made, **{"Idempotency-Key": "k1"}), 409)  # within the first request's lease
    later = now() + timedelta(hours=1)
    monkeypatch.setattr("app.http.idempotency.now", lambda: later)
    retried = deploy(api, made, **{"Idempotency-Key": "k1"})
    assert retried.status == 201, retried.json
    assert [item["id"] for item in api.get("/instances", user="alice").json["items"]] == [retried.json["id"]]


def test_an_upgrade_made_whose_answer_was_lost_answers_200(api, app, made, monkeypatch):
    shop = deploy(api, made).json
    Breaking(app, "instances").break_after("update_one")
    upgraded = api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 3}}, user="alice")
    assert upgraded.status == 200, upgraded.json
    assert api.get(f"/instances/{shop['id']}", user="alice").json["values"] == {"REPLICAS": 3}
    assert usage_once_settled(api, made[1], monkeypatch) == times(3, instances=1)


def test_an_upgrade_never_made_says_so(api, app, made, monkeypatch):
    shop = deploy(api, made).json
    Breaking(app, "instances").break_before("update_one")
    refused = api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 3}}, user="alice")
    assert_problem(refused, 503)
    assert "upgrade did not take place" in refused.json["detail"]
    assert api.get(f"/instances/{shop['id']}", user="alice").json["values"] == {"REPLICAS": 1}
    assert usage_once_settled(api, made[1], monkeypatch) == times(1)

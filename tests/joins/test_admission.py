"""Instances: admitted against a profile's room (with its container defaults and maximum), counted
exactly in its usage under concurrent admissions, their rendered definition the same bytes every
time, upgraded and rolled back with the diff, listed (`behind`), deleted, and what they use kept
(profiles, blueprints, revisions)."""

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import yaml
from bson import ObjectId

from app.profiles.storage import store as profiles
from app.profiles.usage import ZERO
from app.storage.database import get_db, now
from support import compose_oracle as oracle
from support.http import assert_problem, create
from support.instances import PARAMETERS, TEAM, WEB, assert_compose_accepts_every_definition, deploy, usage

Mi, Gi = 1024**2, 1024**3


@pytest.fixture(autouse=True)
def every_definition_is_one_compose_accepts(api):
    yield
    assert_compose_accepts_every_definition(api)


@pytest.fixture
def web(api):
    made = create(
        api, "blueprints", name="web", blueprintType="compose", yml=WEB, parameters=PARAMETERS, entitlementType="PUBLIC"
    )
    assert made.status == 201, made.json
    return made.json


@pytest.fixture
def team(api):
    return create(api, "profiles", **TEAM).json


def test_an_admission_counts_the_render_with_the_profiles_defaults_and_keeps_its_bytes(api, web, team):
    r = deploy(api, web, team, "shop", values={"REPLICAS": 2})
    assert r.status == 201, r.json
    shop = r.json
    assert shop["rev"] == 1 and shop["values"] == {"TAG": "1.27", "REPLICAS": 2, "DB_PASSWORD": None}
    assert shop["requirements"]["memoryBytes"] == 2 * 256 * Mi and shop["requirements"]["cpuMillis"] == 200
    assert usage(api, team) == {
        "memoryBytes": 512 * Mi,
        "cpuMillis": 200,
        "containers": 2,
        "storageBytes": 0,
        "instances": 1,
    }
    first = api.get(f"/instances/{shop['id']}/yml", user="alice")
    assert first.status == 200 and first.headers["cache-control"] == "no-store"
    assert first.headers["content-type"].startswith("application/yaml")
    assert api.get(f"/instances/{shop['id']}/yml", user="alice").body == first.body  # the same password again
    definition = yaml.safe_load(first.body)["services"]["web"]
    assert definition["deploy"] == {"resources": {"limits": {"memory": "256m", "cpus": 0.1}}, "replicas": 2}
    accepted, project = oracle.config(first.body.decode())
    assert accepted and oracle.requirements(project, int)["memoryBytes"] == 512 * Mi, project
    assert len(definition["environment"]["DB_PASSWORD"]) == 24
    assert definition["environment"]["DB_PASSWORD"] not in str(api.get(f"/instances/{shop['id']}", user="alice").json)


def test_no_room_is_a_409_naming_each_resource_short_of_it(api, web, team):
    assert deploy(api, web, team, "big", values={"REPLICAS": 3}).status == 201  # 768 MiB of 1 GiB
    dry = api.post(
        "/instances?dryRun=true",
        json={"name": "more", "blueprint": web["id"], "profile": team["id"], "values": {"REPLICAS": 2}},
        user="alice",
    )
    problem = assert_problem(dry, 409)
    assert problem["detail"] == (
        "The profile has no room for it: memory: requires 512 MiB, 768 MiB of 1 GiB used, 256 MiB available."
    )
    assert problem["quota"]["memory"] == {"required": 512 * Mi, "used": 768 * Mi, "cap": Gi, "available": 256 * Mi}
    assert problem["quota"]["cpu"] == {"required": 200, "used": 300, "cap": 1000, "available": 700}
    assert assert_problem(deploy(api, web, team, "more", values={"REPLICAS": 2}), 409)["quota"] == problem["quota"]
    fitting = api.post(
        "/instances?dryRun=true", json={"name": "one", "blueprint": web["id"], "profile": team["id"]}, user="alice"
    )
    assert fitting.status == 200 and fitting.json["id"] is None
    assert usage(api, team)["instances"] == 1 and api.get("/instances", user="alice").json["items"][0]["name"] == "big"


def test_unbounded_and_over_the_maximum_are_refused_where_the_profile_caps_them(api, web):
    plain = create(api, "profiles", name="no defaults", memoryCap="1Gi").json
    problem = assert_problem(deploy(api, web, plain, "a"), 409)
    assert "memory: a container declares none and the profile gives no container default" in problem["detail"]
    most = create(api, "profiles", name="small", containerMax={"memory": "128Mi"}).json
    declared = create(
        api,
        "blueprints",
        name="declared",
        blueprintType="compose",
        yml="services:\n  app: {image: x, mem_limit: 256m}\n",
    ).json
    assert (
        "over the profile's per-container maximum (app: 256Mi > 128Mi)"
        in assert_problem(deploy(api, declared, most, "b"), 409)["detail"]
    )
    uncapped = create(api, "profiles", name="uncapped").json
    assert deploy(api, web, uncapped, "c").status == 201  # nothing capped: nothing to refuse


def test_the_body_is_checked_and_names_what_it_refers_to(api, web, team, app):
    for body, field in (
        ({"name": "Shop"}, "name"),
        ({"name": "-a"}, "name"),
        ({"name": "a" * 64}, "name"),
        ({"blueprint": "0" * 24}, "blueprint"),
        ({"profile": "nope"}, "profile"),
        ({"values": {"REPLICAS": "3"}}, "values.REPLICAS"),
        ({"rev": 7}, "rev"),
        ({"values": {"NOPE": 1}}, "values.NOPE"),
        ({"rev": 0}, "rev"),
    ):
        sent = {"name": "shop", "blueprint": web["id"], "profile": team["id"], **body}
        assert field in assert_problem(api.post("/instances", json=sent, user="alice"), 422)["errors"], body
    bobs = create(api, "profiles", user="bob").json
    assert "profile" in assert_problem(deploy(api, web, bobs, "shop"), 422)["errors"]  # not alice's to read
    assert deploy(api, web, team, "shop").status == 201
    held = usage(api, team)
    assert "already" in assert_problem(deploy(api, web, team, "shop"), 409)["detail"]  # unique per owner
    dry = api.post(
        "/instances?dryRun=true", json={"name": "shop", "blueprint": web["id"], "profile": team["id"]}, user="alice"
    )
    assert "already" in assert_problem(dry, 409)["detail"]  # a dry run asks what the index would say
    assert_problem(deploy(api, web, team, "viewer", user="victor"), 403)
    assert usage(api, team) == held and held["instances"] == 1  # the refused one's reservation taken back
    assert unsettled(app, team) == {}


def test_upgrade_renders_again_admits_the_difference_and_answers_the_diff(api, web, team):
    shop = deploy(api, web, team, "shop", values={"REPLICAS": 2}).json
    password = yaml.safe_load(api.get(f"/instances/{shop['id']}/yml", user="alice").body)["services"]["web"][
        "environment"
    ]["DB_PASSWORD"]
    assert (
        api.patch(f"/blueprints/{web['id']}", json={"yml": WEB.replace("nginx:", "nginx-new:")}, user="alice").status
        == 200
    )
    behind = api.get("/instances?behind=true", user="alice").json["items"]
    assert [item["name"] for item in behind] == ["shop"]
    assert api.get("/instances?behind=false", user="alice").json["items"] == []
    r = api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 3}}, user="alice")
    assert r.status == 200, r.json
    assert r.json["rev"] == 2 and r.json["values"]["REPLICAS"] == 3
    assert r.headers["cache-control"] == "no-store"  # the diff may hold its secrets
    assert "-    image: nginx:1.27\n+    image: nginx-new:1.27\n" in r.json["diff"]
    assert r.json["diff"].startswith("--- rev 1\n+++ rev 2\n")
    assert usage(api, team)["memoryBytes"] == 3 * 256 * Mi and usage(api, team)["instances"] == 1
    text = api.get(f"/instances/{shop['id']}/yml", user="alice").body.decode()
    assert f"DB_PASSWORD: {password}" in text  # the generated value is kept
    too_many = api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 5}}, user="alice")
    assert assert_problem(too_many, 409)["quota"]["memory"]["used"] == 0  # its own usage is given back first
    back = api.post(f"/instances/{shop['id']}/upgrade", json={"rev": 1}, user="alice")  # a rollback
    assert back.status == 200 and back.json["rev"] == 1 and "+    image: nginx:1.27\n" in back.json["diff"]
    assert usage(api, team)["memoryBytes"] == 3 * 256 * Mi
    etag = api.get(f"/instances/{shop['id']}", user="alice").headers["etag"]
    stale = api.post(f"/instances/{shop['id']}/upgrade", json={}, headers={"If-Match": '"1"'}, user="alice")
    assert_problem(stale, 412)
    dry = api.post(f"/instances/{shop['id']}/upgrade?dryRun=true", json={}, headers={"If-Match": etag}, user="alice")
    assert dry.status == 200 and dry.json["rev"] == 2
    assert api.get(f"/instances/{shop['id']}", user="alice").json["rev"] == 1  # a dry run writes nothing


def test_a_generated_value_is_read_only_in_the_definition_whatever_write_only_says(api, team):
    """A generated parameter without `writeOnly` (every OpenShift `generate: expression` import)
    showed its value to the profile's owner, who may not read the definition."""
    generated = {"type": "object", "properties": {"DB_PASSWORD": {"type": "string", "x-generate": "[a-z]{24}"}}}
    yml = "services:\n  db:\n    image: mysql\n    environment:\n      PASSWORD: ${DB_PASSWORD}\n"
    mysql = create(
        api,
        "blueprints",
        name="mysql",
        blueprintType="compose",
        yml=yml,
        parameters=generated,
        entitlementType="PUBLIC",
    ).json
    shared = create(
        api, "profiles", name="shared", entitledUsers=["bob"], memoryCap="1Gi", containerDefaults={"memory": "64Mi"}
    ).json
    bobs = deploy(api, mysql, shared, "bobs-db", user="bob")
    assert bobs.status == 201 and bobs.json["values"] == {"DB_PASSWORD": None}
    password = yaml.safe_load(api.get(f"/instances/{bobs.json['id']}/yml", user="bob").body)["services"]["db"][
        "environment"
    ]["PASSWORD"]
    for user in ("bob", "alice"):  # alice owns the profile
        read = api.get(f"/instances/{bobs.json['id']}", user=user)
        assert read.status == 200 and password not in read.body.decode()
        listed = api.get(f"/instances?profile={shared['id']}", user=user)
        assert listed.json["items"][0]["values"] == {"DB_PASSWORD": None} and password not in listed.body.decode()
    upgraded = api.post(f"/instances/{bobs.json['id']}/upgrade", json={}, user="bob")
    assert upgraded.json["values"] == {"DB_PASSWORD": None}
    rendered = api.post(f"/blueprints/{mysql['id']}/render", json={}, user="alice").json
    assert rendered["values"] == {"DB_PASSWORD": None}


def test_who_reads_what(api, web, team):
    shop = deploy(api, web, team, "shop").json
    shared = create(
        api, "profiles", name="shared", entitledUsers=["bob"], **{k: v for k, v in TEAM.items() if k != "name"}
    ).json
    bobs = deploy(api, web, shared, "bobs", user="bob")
    assert bobs.status == 201, bobs.json
    assert api.get(f"/instances/{bobs.json['id']}", user="alice").status == 200  # alice owns the profile
    assert api.get(f"/instances/{bobs.json['id']}/yml", user="alice").status == 404  # its secrets are bob's
    assert api.get(f"/instances/{shop['id']}", user="bob").status == 404
    assert api.get(f"/instances/{shop['id']}/yml", user="admin").status == 200
    assert_problem(api.delete(f"/instances/{bobs.json['id']}", user="alice"), 403)
    assert [i["name"] for i in api.get(f"/instances?profile={shared['id']}", user="alice").json["items"]] == ["bobs"]
    assert [
        i["name"] for i in api.get(f"/instances?blueprint={web['id']}&owner=alice", user="admin").json["items"]
    ] == ["shop"]


def test_what_instances_use_is_kept(api, web, team, app):
    shop = deploy(api, web, team, "shop").json
    assert (
        "1 instance spends from this profile"
        in assert_problem(api.delete(f"/profiles/{team['id']}", user="alice"), 409)["detail"]
    )
    assert (
        "1 instance of this blueprint exists"
        in assert_problem(api.delete(f"/blueprints/{web['id']}", user="alice"), 409)["detail"]
    )
    app.config["REVISIONS_KEPT"] = 3
    for i in range(6):  # revision 1 is the instance's; five newer ones push it past the kept three
        assert api.patch(f"/blueprints/{web['id']}", json={"version": str(i)}, user="alice").status == 200
    assert api.get(f"/blueprints/{web['id']}/revisions/1", user="alice").status == 200
    assert api.get(f"/blueprints/{web['id']}/revisions/2", user="alice").status == 404
    lowered = api.patch(f"/profiles/{team['id']}", json={"memoryCap": "1Mi"}, user="alice")
    assert lowered.status == 200 and lowered.json["usage"]["memoryBytes"] == 256 * Mi  # nothing running is undone
    assert_problem(deploy(api, web, team, "more"), 409)
    assert api.delete(f"/instances/{shop['id']}", user="alice").status == 204
    assert usage(api, team) == dict.fromkeys(("memoryBytes", "cpuMillis", "containers", "storageBytes", "instances"), 0)
    assert api.delete(f"/profiles/{team['id']}", user="alice").status == 204


def test_a_fit_says_what_is_used_available_and_how_many_more_fit(api, web, team):
    deploy(api, web, team, "shop", values={"REPLICAS": 2})
    fit = api.get(f"/blueprints/{web['id']}/fit?profile={team['id']}", user="alice").json
    assert fit["fits"] is True and fit["more"] == 2  # 512 MiB used of 1 GiB: two more of 256 MiB
    assert fit["resources"]["memory"] | {"defaulted": []} == {
        "required": 256 * Mi,
        "cap": Gi,
        "used": 512 * Mi,
        "available": 512 * Mi,
        "headroom": 256 * Mi,
        "verdict": "fits",
        "defaulted": [],
        "overMax": [],
    }
    assert fit["resources"]["storage"]["available"] is None
    uncapped = create(api, "profiles", name="uncapped").json
    assert api.get(f"/blueprints/{web['id']}/fit?profile={uncapped['id']}", user="alice").json["more"] is None


@pytest.mark.parametrize("app", ["socket"], indirect=True)
def test_twenty_concurrent_admissions_into_room_for_ten_admit_ten(api, web, app):
    defaults = {"memory": "1Mi", "cpu": "1m"}
    room = create(api, "profiles", name="room", containerCap="10", containerDefaults=defaults).json
    with ThreadPoolExecutor(max_workers=20) as pool:
        statuses = [r.status for r in pool.map(lambda i: deploy(api, web, room, f"i{i}"), range(20))]
    assert sorted(statuses) == [201] * 10 + [409] * 10
    assert usage(api, room) == {
        "memoryBytes": 10 * Mi,
        "cpuMillis": 10,
        "containers": 10,
        "storageBytes": 0,
        "instances": 10,
    }
    assert unsettled(app, room) == {}


@pytest.mark.parametrize("app", ["socket"], indirect=True)
def test_a_profile_deleted_while_admissions_race_it_is_either_gone_with_none_or_kept_with_all_counted(api, web, app):
    """The delete closes the profile's ledger on the condition that nothing spends from it, then
    deletes the profile: each admission is counted (and the delete refused) or refused."""
    racing = create(api, "profiles", name="racing", containerDefaults={"memory": "1Mi", "cpu": "1m"}).json
    with ThreadPoolExecutor(max_workers=8) as pool:
        admissions = pool.map(lambda i: deploy(api, web, racing, f"r{i}"), range(8))
        deleted = api.delete(f"/profiles/{racing['id']}", user="alice").status
        statuses = [r.status for r in admissions]
    admitted = [i for i in api.get("/instances?limit=100", user="alice").json["items"] if i["profile"] == racing["id"]]
    assert len(admitted) == statuses.count(201)
    if deleted == 204:
        assert admitted == [] and api.get(f"/profiles/{racing['id']}", user="alice").status == 404
    else:
        assert deleted == 409 and usage(api, racing)["instances"] == len(admitted) > 0


def test_a_delete_its_precondition_refuses_leaves_the_profile_open_to_admissions(api, web, team):
    assert_problem(api.delete(f"/profiles/{team['id']}", headers={"If-Match": '"0"'}, user="alice"), 412)
    assert deploy(api, web, team, "after").status == 201


def test_a_delete_that_died_half_way_closes_the_profile_only_until_its_lease_passes(api, web, team, app):
    with app.app_context():
        closed = {"_id": ObjectId(team["id"])}
        died = {"$set": {"closing": now()}, "$setOnInsert": {"usage": ZERO, "ledger": {}}}  # as a delete closes it
        get_db().ledgers.update_one(closed, died, upsert=True)
        assert_problem(deploy(api, web, team, "during"), 409)
        refused = assert_problem(api.delete(f"/profiles/{team['id']}", user="alice"), 409)
        assert "Another delete of this profile is under way" in refused["detail"]
        get_db().ledgers.update_one(closed, {"$set": {"closing": now() - timedelta(minutes=5)}})
    assert deploy(api, web, team, "after").status == 201
    assert api.get(f"/profiles/{team['id']}", user="alice").status == 200


def ledger(app, profile):
    with app.app_context():
        return get_db().ledgers.find_one({"_id": ObjectId(profile["id"])})["ledger"]


def unsettled(app, profile):
    """The ledger's entries but those of creates whose instance exists: such an entry adds nothing
    to usage and goes with the next reservation on the profile."""
    entries = ledger(app, profile)
    with app.app_context():
        made = {
            str(doc["_id"]) for doc in get_db().instances.find({"_id": {"$in": [ObjectId(key) for key in entries]}})
        }
    return {key: entry for key, entry in entries.items() if not (entry["op"] == "create" and key in made)}


def test_a_creates_entry_goes_with_the_next_reservation_or_the_first_change_of_its_instance(api, web, team, app):
    """A create's settlement costs no write of its own: its entry (which adds nothing to usage when
    it goes) is removed by the process's next reservation on the profile, or concluded by an
    upgrade or delete of its instance, which would otherwise find it in the way."""
    first = deploy(api, web, team, "first").json
    assert list(ledger(app, team)) == [first["id"]]
    second = deploy(api, web, team, "second").json
    assert list(ledger(app, team)) == [second["id"]]  # the first went with the second's reservation
    assert api.post(f"/instances/{second['id']}/upgrade", json={"values": {"REPLICAS": 2}}, user="alice").status == 200
    assert ledger(app, team) == {}
    third = deploy(api, web, team, "third").json
    assert api.delete(f"/instances/{third['id']}", user="alice").status == 204
    assert ledger(app, team) == {}
    share = {"memoryBytes": 256 * Mi, "cpuMillis": 100, "containers": 1, "storageBytes": 0, "instances": 1}
    assert usage(api, team) == {key: value * 3 if key != "instances" else 2 for key, value in share.items()}


def test_what_a_crashed_request_left_is_settled_by_what_its_instance_says(api, web, team, app):
    """Ledger entries whose requests died (older than the lease), as a reservation leaves them: a
    create without its instance is taken back; a delete whose instance is still there is taken back
    (the instance stays, counted); one whose instance is gone is settled, freeing its share. A read
    of the profile concludes them, and deletes nothing."""
    kept, gone = deploy(api, web, team, "kept").json, deploy(api, web, team, "gone").json
    share = {"memoryBytes": 256 * Mi, "cpuMillis": 100, "containers": 1, "storageBytes": 0, "instances": 1}
    freed = {key: -value for key, value in share.items()}
    with app.app_context():
        db, old, ghost = get_db(), now() - timedelta(minutes=5), str(ObjectId())
        db.instances.delete_one({"_id": ObjectId(gone["id"])})  # its delete wrote, then the request died
        db.ledgers.update_one(
            {"_id": ObjectId(team["id"])},
            {
                "$inc": {f"usage.{key}": value for key, value in share.items()},  # the ghost's reservation
                "$set": {
                    f"ledger.{ghost}": {"op": "create", "delta": share, "pending": ZERO, "at": old},
                    f"ledger.{kept['id']}": {"op": "delete", "delta": freed, "pending": freed, "at": old},
                    f"ledger.{gone['id']}": {"op": "delete", "delta": freed, "pending": freed, "at": old},
                },
            },
        )
    assert usage(api, team) == share  # a read concludes them: one instance counted, the one that exists
    assert api.get(f"/instances/{kept['id']}", user="alice").status == 200
    assert unsettled(app, team) == {}


def test_a_reservation_adds_what_grows_at_once_and_frees_what_shrinks_only_once_settled(api, web, team, app):
    """So that usage never counts less than the instances that exist: between a delete's
    reservation and its write, another admission cannot take the room it is about to free."""
    shop = deploy(api, web, team, "shop").json
    share = {"memoryBytes": 256 * Mi, "cpuMillis": 100, "containers": 1, "storageBytes": 0, "instances": 1}
    with app.app_context():
        profile = profiles.with_usage(ObjectId(team["id"]))
        smaller = {**{key: -value for key, value in share.items()}, "memoryBytes": Mi, "instances": 0}
        entry = profiles.reserve(profile, shop["id"], smaller, {"op": "upgrade", "rev": 2})
        during = profiles.with_usage(profile["_id"])["usage"]
        profiles.settle(profile["_id"], shop["id"], entry)
        after = profiles.with_usage(profile["_id"])["usage"]
    assert during == {**share, "memoryBytes": 257 * Mi}  # the growth is counted, the shrinking not yet
    assert after == {"memoryBytes": 257 * Mi, "cpuMillis": 0, "containers": 0, "storageBytes": 0, "instances": 1}
    assert unsettled(app, team) == {}

"""Releases, as Helm keeps them: every create, upgrade and rollback is one, with the revision and
the values it used; a rollback restores both (generated values as generated then) and is admitted
as an upgrade is; releases pin their revisions against history's pruning."""

import yaml

from app.storage.database import get_db
from support.http import assert_problem, create
from support.instances import PARAMETERS, TEAM, WEB, deploy, usage

Mi = 1024**2


def password(api, instance):
    text = api.get(f"/instances/{instance['id']}/yml", user="alice").body
    return yaml.safe_load(text)["services"]["web"]["environment"]["DB_PASSWORD"]


def made(api):
    web = create(
        api, "blueprints", name="web", blueprintType="compose", yml=WEB, parameters=PARAMETERS, entitlementType="PUBLIC"
    ).json
    return web, create(api, "profiles", **TEAM).json


def test_a_rollback_restores_the_revision_and_the_values_of_a_release(api):
    web, team = made(api)
    shop = deploy(api, web, team, "shop", values={"REPLICAS": 2}).json
    assert shop["release"] == 1
    generated = password(api, shop)
    assert api.patch(f"/blueprints/{web['id']}", json={"yml": WEB.replace("nginx:", "nginx-new:")}, user="alice")
    up = api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 3}}, user="alice")
    assert up.status == 200 and up.json["release"] == 2 and up.json["rev"] == 2
    back = api.post(f"/instances/{shop['id']}/rollback", json={"release": 1}, user="alice")
    assert back.status == 200, back.json
    assert back.json["release"] == 3 and back.json["rev"] == 1
    assert back.json["values"]["REPLICAS"] == 2  # the value the upgrade set is not kept
    assert back.headers["cache-control"] == "no-store" and back.headers["etag"]
    assert "-    image: nginx-new:1.27\n+    image: nginx:1.27\n" in back.json["diff"]
    assert password(api, back.json) == generated  # generated then, not again
    assert usage(api, team)["memoryBytes"] == 2 * 256 * Mi and usage(api, team)["instances"] == 1
    listed = api.get(f"/instances/{shop['id']}/releases", user="alice")
    assert listed.status == 200
    assert [(one["release"], one["rev"], one["values"]["REPLICAS"]) for one in listed.json["items"]] == [
        (3, 1, 2),
        (2, 2, 3),
        (1, 1, 2),
    ]
    assert all(one["values"]["DB_PASSWORD"] is None and one["by"] == "alice" for one in listed.json["items"])
    assert generated not in listed.body.decode()
    first = api.get(f"/instances/{shop['id']}/releases?limit=2", user="alice")
    assert [one["release"] for one in first.json["items"]] == [3, 2]
    rest = api.get(f"/instances/{shop['id']}/releases?limit=2&cursor={first.json['next']}", user="alice")
    assert [one["release"] for one in rest.json["items"]] == [1] and rest.json["next"] is None
    assert_problem(api.get(f"/instances/{shop['id']}/releases?cursor=forged", user="alice"), 422)


def test_a_rollback_is_admitted_checked_and_conditional(api):
    web, team = made(api)
    shop = deploy(api, web, team, "shop", values={"REPLICAS": 1}).json
    assert api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 2}}, user="alice").status == 200
    assert_problem(api.post(f"/instances/{shop['id']}/rollback", json={"release": 9}, user="alice"), 404)
    assert_problem(api.post(f"/instances/{shop['id']}/rollback", json={"release": "1"}, user="alice"), 422)
    assert_problem(api.post(f"/instances/{shop['id']}/rollback", json={}, user="alice"), 422)
    stale = api.post(
        f"/instances/{shop['id']}/rollback", json={"release": 1}, headers={"If-Match": '"1"'}, user="alice"
    )
    assert_problem(stale, 412)
    assert api.get(f"/instances/{shop['id']}/releases", user="bob").status == 404  # not bob's to read
    assert_problem(api.post(f"/instances/{shop['id']}/rollback", json={"release": 1}, user="bob"), 404)
    # release 1 no longer fits: the profile was lowered under it
    other = deploy(api, web, team, "other", values={"REPLICAS": 2}).json
    assert api.patch(f"/profiles/{team['id']}", json={"memoryCap": "768Mi"}, user="alice").status == 200
    assert api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 0}}, user="alice").status == 200
    assert api.post(f"/instances/{other['id']}/upgrade", json={"values": {"REPLICAS": 3}}, user="alice").status == 200
    refused = api.post(f"/instances/{shop['id']}/rollback", json={"release": 2}, user="alice")
    assert assert_problem(refused, 409)["quota"]["memory"]["available"] == 0
    assert api.get(f"/instances/{shop['id']}", user="alice").json["release"] == 3  # nothing written


def test_releases_pin_their_revisions_and_the_newest_are_kept(api, app):
    web, team = made(api)
    shop = deploy(api, web, team, "shop").json
    app.config["REVISIONS_KEPT"] = 2
    app.config["RELEASES_KEPT"] = 3
    for i in range(5):
        assert api.patch(f"/blueprints/{web['id']}", json={"version": str(i)}, user="alice").status == 200
        assert api.post(f"/instances/{shop['id']}/upgrade", json={}, user="alice").status == 200
    kept = api.get(f"/instances/{shop['id']}/releases", user="alice").json["items"]
    assert [(one["release"], one["rev"]) for one in kept] == [(6, 6), (5, 5), (4, 4)]
    assert api.get(f"/blueprints/{web['id']}/revisions/4", user="alice").status == 200  # release 4's
    assert api.get(f"/blueprints/{web['id']}/revisions/2", user="alice").status == 404  # no release keeps it
    assert_problem(api.post(f"/instances/{shop['id']}/rollback", json={"release": 2}, user="alice"), 404)
    back = api.post(f"/instances/{shop['id']}/rollback", json={"release": 4}, user="alice")
    assert back.status == 200 and back.json["rev"] == 4 and back.json["release"] == 7


def test_an_instance_stored_before_releases_is_its_release_1(api, app):
    web, team = made(api)
    shop = deploy(api, web, team, "shop", values={"REPLICAS": 2}).json
    with app.app_context():
        get_db().instances.update_one({"name": "shop"}, {"$unset": {"releases": "", "release": ""}})
    listed = api.get(f"/instances/{shop['id']}/releases", user="alice").json["items"]
    assert [(one["release"], one["rev"], one["values"]["REPLICAS"]) for one in listed] == [(1, 1, 2)]
    up = api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 3}}, user="alice")
    assert up.json["release"] == 2
    back = api.post(f"/instances/{shop['id']}/rollback", json={"release": 1}, user="alice")
    assert back.json["values"]["REPLICAS"] == 2 and back.json["release"] == 3

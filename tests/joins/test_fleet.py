"""POST /instances/upgrade: every instance of a selection the caller may change, upgraded each on
its own (one refused leaves the others done, saying why), a dry run answering the same without
writing; past 50 instances a job; usage the sum of the instances after it."""

import pytest

from support.http import assert_problem, create
from support.instances import PARAMETERS, TEAM, WEB, assert_compose_accepts_every_definition, deploy, usage
from support.jobs import finished

Mi = 1024**2


@pytest.fixture(autouse=True)
def every_definition_is_one_compose_accepts(api):
    yield
    assert_compose_accepts_every_definition(api)


# revision 2 as people change a template: a new image, a cache service, a parameter for it
WEB_2 = WEB.replace("nginx:${TAG}", "nginx:${TAG}-alpine") + "  cache:\n    image: redis:${CACHE_TAG}\n"
PARAMETERS_2 = {
    **PARAMETERS,
    "properties": {**PARAMETERS["properties"], "CACHE_TAG": {"type": "string", "default": "7"}},
}


@pytest.fixture
def web(api):
    return create(
        api, "blueprints", name="web", blueprintType="compose", yml=WEB, parameters=PARAMETERS, entitlementType="PUBLIC"
    ).json


def changed(api, web):
    r = api.patch(f"/blueprints/{web['id']}", json={"yml": WEB_2, "parameters": PARAMETERS_2}, user="alice")
    assert r.status == 200, r.json


def upgrade(api, body, user="alice", dry_run=False):
    return api.post("/instances/upgrade" + ("?dryRun=true" if dry_run else ""), json=body, user=user)


def test_a_dry_run_says_what_each_would_become_and_writes_nothing(api, web):
    team = create(api, "profiles", **TEAM).json
    shop = deploy(api, web, team, "shop", values={"REPLICAS": 1}).json
    deploy(api, web, team, "blog", values={"REPLICAS": 1})
    shared = create(api, "profiles", name="bobs", memoryCap="1Gi", containerDefaults={"memory": "64Mi"}).json
    assert api.patch(f"/profiles/{shared['id']}", json={"entitledUsers": ["bob"]}, user="alice").status == 200
    bobs = deploy(api, web, shared, "bobs", user="bob")
    assert bobs.status == 201
    changed(api, web)
    before = usage(api, team)
    dry = upgrade(api, {"blueprint": web["id"]}, dry_run=True)
    assert dry.status == 200 and dry.headers["cache-control"] == "no-store"
    results = dry.json["results"]
    assert [one["name"] for one in results] == ["shop", "blog"]  # oldest first; bob's is not alice's to upgrade
    first = results[0]
    assert first["instance"] == shop["id"] and (first["from"], first["to"], first["outcome"]) == (1, 2, "upgraded")
    assert "+    image: nginx:1.27-alpine\n" in first["diff"] and first["added"] == ["cache"] and first["removed"] == []
    assert first["parameters"] == {"added": {"CACHE_TAG": "7"}, "removed": []}
    assert first["etag"] == api.get(f"/instances/{shop['id']}", user="alice").headers["etag"]
    assert api.get(f"/instances/{shop['id']}", user="alice").json["rev"] == 1 and usage(api, team) == before
    done = upgrade(api, {"blueprint": web["id"]})
    assert [one["outcome"] for one in done.json["results"]] == ["upgraded", "upgraded"]
    assert api.get(f"/instances/{shop['id']}", user="alice").json["rev"] == 2
    assert usage(api, team)["containers"] == before["containers"] + 2  # a cache each, at the profile's defaults
    assert api.get(f"/instances/{bobs.json['id']}", user="bob").json["rev"] == 1
    again = upgrade(api, {"blueprint": web["id"]})
    assert [one["outcome"] for one in again.json["results"]] == ["unchanged", "unchanged"]
    assert upgrade(api, {"blueprint": web["id"], "behind": True}).json["results"] == []


def test_one_refused_leaves_the_others_done_and_says_why(api, web):
    team = create(api, "profiles", **{**TEAM, "memoryCap": "1280Mi"}).json  # room for five containers of 256 MiB
    names = ["a", "b", "c", "d"]
    made = {name: deploy(api, web, team, name).json for name in names}  # four of them
    changed(api, web)  # each needs one more
    results = upgrade(api, {"profile": team["id"], "behind": True}).json["results"]
    assert [one["outcome"] for one in results] == ["upgraded", "refused", "refused", "refused"]
    refused = results[1]
    assert "no room" in refused["problems"][0] and refused["quota"]["memory"]["cap"] == 1280 * Mi
    assert usage(api, team)["memoryBytes"] == 5 * 256 * Mi
    assert api.get(f"/instances/{made['b']['id']}", user="alice").json["rev"] == 1


def test_an_instance_changed_since_it_was_read_is_left_and_said_so(api, web):
    team = create(api, "profiles", **TEAM).json
    shop = deploy(api, web, team, "shop").json
    changed(api, web)
    read = upgrade(api, {"blueprint": web["id"]}, dry_run=True).json["results"][0]
    assert api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 2}}, user="alice").status == 200
    stale = upgrade(api, {"blueprint": web["id"], "ifMatch": {shop["id"]: read["etag"]}}).json["results"][0]
    assert stale["outcome"] == "unchanged"  # the single upgrade already moved it to revision 2
    assert api.patch(f"/blueprints/{web['id']}", json={"version": "3"}, user="alice").status == 200
    read = upgrade(api, {"blueprint": web["id"]}, dry_run=True).json["results"][0]
    assert api.post(f"/instances/{shop['id']}/upgrade", json={"rev": 2}, user="alice").status == 200
    failed = upgrade(api, {"blueprint": web["id"], "ifMatch": {shop["id"]: read["etag"]}}).json["results"][0]
    assert failed["outcome"] == "failed" and "changed since" in failed["problems"][0]


def test_a_selection_is_needed_and_checked(api, web):
    assert "_schema" in assert_problem(upgrade(api, {"behind": True}), 422)["errors"]
    assert "rev" in assert_problem(upgrade(api, {"profile": "x" * 24, "rev": 2}), 422)["errors"]
    assert_problem(upgrade(api, {"blueprint": web["id"]}, user="victor"), 403)
    assert upgrade(api, {"team": "nobody"}).json["results"] == []
    assert_problem(upgrade(api, {"source": "0123456789abcdef01234567"}), 404)


def test_past_fifty_instances_it_is_a_job_and_usage_stays_the_sum(api, web):
    team = create(api, "profiles", name="big", memoryCap="64Gi", containerDefaults={"memory": "64Mi"}).json
    for index in range(55):
        assert deploy(api, web, team, f"i{index}").status == 201
    changed(api, web)
    job = finished(api, upgrade(api, {"blueprint": web["id"], "behind": True}))
    assert job["state"] == "done" and job["kind"] == "upgrade" and job["done"] == job["total"] == 55
    assert [one["outcome"] for one in job["report"]["results"]] == ["upgraded"] * 55
    listed = api.get(f"/instances?profile={team['id']}&limit=200", user="alice").json["items"]
    assert {item["rev"] for item in listed} == {2} and len(listed) == 55
    assert usage(api, team)["memoryBytes"] == sum(item["requirements"]["memoryBytes"] for item in listed)
    assert usage(api, team)["containers"] == 110

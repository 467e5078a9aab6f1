"""Instances on Kubernetes: admitted by the Kubernetes rendering's requirements (its claims in
storage), kept in a namespace of their own that carries a ResourceQuota equal to what was admitted
and the profile's LimitRange, upgraded on the same target; decoded by kubectl."""

import pytest
import yaml

from support.http import assert_problem, create
from support.instances import PARAMETERS, TEAM, WEB
from support.on_kubernetes import taken_by_kubernetes

Mi, Gi = 1024**2, 1024**3
STATEFUL = WEB + "    volumes:\n      - data:/data\nvolumes:\n  data:\n"


@pytest.fixture
def web(api):
    made = create(api, "blueprints", name="web", blueprintType="compose", yml=STATEFUL, parameters=PARAMETERS)
    assert made.status == 201, made.json
    return made.json


def admit(api, web, team, name, **body):
    sent = {"name": name, "blueprint": web["id"], "profile": team["id"], "target": "kubernetes", **body}
    return api.post("/instances", json=sent, user="alice")


def test_an_instance_on_kubernetes_lives_in_its_namespace_held_to_what_was_admitted(api, web):
    team = create(api, "profiles", **{**TEAM, "storageCap": "10Gi", "containerMax": {"memory": "1Gi"}}).json
    r = admit(api, web, team, "shop", values={"REPLICAS": 2}, volumeSizes={"data": "5Gi"})
    assert r.status == 201, r.json
    shop = r.json
    assert shop["target"] == "kubernetes" and "volumeSizes" not in shop
    share = {"memoryBytes": 512 * Mi, "cpuMillis": 200, "containers": 2, "storageBytes": 5 * Gi}
    assert {key: shop["requirements"][key] for key in share} == share
    used = api.get(f"/profiles/{team['id']}", user="alice").json["usage"]
    assert used == {**share, "instances": 1, "monthly": None, "currency": None, "observed": None}
    text = api.get(f"/instances/{shop['id']}/yml", user="alice").body.decode()
    objects = [one for one in yaml.safe_load_all(text) if one]
    assert [one["kind"] for one in objects[:3]] == ["Namespace", "ResourceQuota", "LimitRange"]
    assert objects[0]["metadata"]["name"] == "shop"
    assert all(one["metadata"]["namespace"] == "shop" for one in objects[1:])
    assert objects[1]["spec"]["hard"] == {"limits.memory": "512Mi", "limits.cpu": "200m", "requests.storage": "5Gi"}
    assert objects[2]["spec"]["limits"] == [
        {"type": "Container", "default": {"memory": "256Mi", "cpu": "100m"}, "max": {"memory": "1Gi"}}
    ]
    assert taken_by_kubernetes(text)
    upgraded = api.post(f"/instances/{shop['id']}/upgrade", json={"values": {"REPLICAS": 3}}, user="alice")
    assert upgraded.status == 200, upgraded.json
    assert upgraded.json["target"] == "kubernetes"
    assert (
        "\n-    limits.memory: 512Mi\n" in upgraded.json["diff"]
        and "\n+    limits.memory: 768Mi\n" in upgraded.json["diff"]
    )
    assert "storage: 5Gi" in api.get(f"/instances/{shop['id']}/yml", user="alice").body.decode()  # the size kept
    refused = admit(api, web, team, "big", volumeSize="6Gi")  # 5 GiB of 10 used
    assert "storage" in assert_problem(refused, 409)["quota"]


def test_only_an_instance_holds_a_namespace_a_render_for_one_writes_none(api, web):
    team = create(api, "profiles", **{**TEAM, "storageCap": "10Gi"}).json
    sent = {"values": {"REPLICAS": 2}, "profile": team["id"], "target": "kubernetes", "namespace": "shop"}
    rendered = api.post(f"/blueprints/{web['id']}/render", json=sent, user="alice")
    assert rendered.status == 200, rendered.json
    objects = [one for one in yaml.safe_load_all(rendered.json["yml"]) if one]
    assert {one["kind"] for one in objects}.isdisjoint({"Namespace", "ResourceQuota", "LimitRange"})
    assert all(one["metadata"]["namespace"] == "shop" for one in objects)
    admitted = admit(api, web, team, "shop", values={"REPLICAS": 2})
    assert admitted.status == 201, admitted.json
    text = api.get(f"/instances/{admitted.json['id']}/yml", user="alice").body.decode()
    held = [one for one in yaml.safe_load_all(text) if one]
    assert [one["kind"] for one in held[:3]] == ["Namespace", "ResourceQuota", "LimitRange"]
    assert [one["kind"] for one in held[3:]] == [one["kind"] for one in objects]  # after what holds them


def test_a_target_the_blueprint_has_no_conversion_to_is_named(api, web):
    team = create(api, "profiles", **TEAM).json
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: x}\n"
    manifest = create(api, "blueprints", name="pod", blueprintType="kubernetes", yml=pod).json
    assert "target" in assert_problem(admit(api, manifest, team, "p", target="compose"), 422)["errors"]
    assert admit(api, manifest, team, "p").json["target"] == "kubernetes"  # its own format
    plain = api.post("/instances", json={"name": "c", "blueprint": web["id"], "profile": team["id"]}, user="alice")
    assert plain.json["target"] == "compose"
    sized = {"name": "s", "blueprint": web["id"], "profile": team["id"], "volumeSize": "1Gi"}
    assert "volumeSize" in assert_problem(api.post("/instances", json=sized, user="alice"), 422)["errors"]


ROOM = {"pods": 1, "memory": "64Mi", "cpu": "50m"}  # cert-manager's HTTP-01 solver asks 64Mi and 10m


def test_a_profiles_headroom_is_in_each_namespaces_quota_and_counted_in_its_budget(api, web):
    team = create(api, "profiles", **{**TEAM, "storageCap": "10Gi", "cluster": {"headroom": ROOM}}).json
    assert team["cluster"]["headroom"] == ROOM
    fitted = api.get(f"/blueprints/{web['id']}/fit?profile={team['id']}&target=kubernetes", user="alice").json
    assert fitted["resources"]["memory"]["required"] == (256 + 64) * Mi  # the headroom counted before deploying
    assert fitted["resources"]["containers"]["required"] == 2
    on_engine = api.get(f"/blueprints/{web['id']}/fit?profile={team['id']}", user="alice").json
    assert on_engine["resources"]["memory"]["required"] == 256 * Mi  # no namespace, no headroom
    r = admit(api, web, team, "shop", values={"REPLICAS": 2})
    assert r.status == 201, r.json
    counted = {"memoryBytes": (512 + 64) * Mi, "cpuMillis": 250, "containers": 3}
    assert {key: r.json["requirements"][key] for key in counted} == counted
    assert r.json["requirements"]["headroom"] == {"pods": 1, "memoryBytes": 64 * Mi, "cpuMillis": 50}
    used = api.get(f"/profiles/{team['id']}", user="alice").json["usage"]
    assert {key: used[key] for key in counted} == counted
    text = api.get(f"/instances/{r.json['id']}/yml", user="alice").body.decode()
    quota = [one for one in yaml.safe_load_all(text) if one and one["kind"] == "ResourceQuota"][0]
    assert quota["spec"]["hard"] == {
        "limits.memory": "576Mi",
        "limits.cpu": "250m",
        "requests.storage": "1Gi",
        "pods": "3",  # its two replicas and the solver
    }
    assert taken_by_kubernetes(text)
    # 576 MiB of 1 GiB used: a second like it fits without the headroom (512), not with it (576)
    refused = admit(api, web, team, "shop2", values={"REPLICAS": 2})
    assert "memory" in assert_problem(refused, 409)["quota"]


def test_a_kubernetes_blueprints_instance_counts_the_headroom_too(api):
    team = create(api, "profiles", **{**TEAM, "cluster": {"headroom": {"pods": 2, "memory": "128Mi"}}}).json
    pod = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  replicas: 3\n"
        "  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n"
        "    spec:\n      containers:\n      - {name: a, image: nginx:1.27}\n"
    )
    made = create(api, "blueprints", name="app", blueprintType="kubernetes", yml=pod).json
    r = admit(api, made, team, "app", target="kubernetes")
    assert r.status == 201, r.json
    assert r.json["requirements"]["memoryBytes"] == 3 * 256 * Mi + 128 * Mi
    assert r.json["requirements"]["cpuMillis"] == 300  # no CPU in the headroom: none added
    text = api.get(f"/instances/{r.json['id']}/yml", user="alice").body.decode()
    quota = [one for one in yaml.safe_load_all(text) if one and one["kind"] == "ResourceQuota"][0]
    assert quota["spec"]["hard"]["pods"] == "5" and quota["spec"]["hard"]["limits.memory"] == "896Mi"

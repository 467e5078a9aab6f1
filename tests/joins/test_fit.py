"""Whether a blueprint fits a profile: the fit endpoint, its verdicts, its access rules, and the
two list filters (`GET /profiles?fits=` and `GET /blueprints?fitsProfile=`)."""

import pytest

from app import definitions
from app.definitions.fit import fit
from support.http import assert_problem, create
from support.requirements import need

Mi, Gi = 1024**2, 1024**3
WEB = "services:\n  web:\n    image: nginx\n    deploy:\n      replicas: 2\n      resources:\n        limits: {memory: 256m, cpus: '0.5'}\n"  # noqa: E501
LOOSE = "services:\n  web:\n    image: nginx\n    mem_limit: 64m\n"  # no cpu declared


def limits(memory=None, cpu=None, containers=None, storage=None, defaults=(None, None), most=(None, None)):
    return {
        "memoryBytes": memory,
        "cpuMillis": cpu,
        "containers": containers,
        "storageBytes": storage,
        "containerDefaults": {"memoryBytes": defaults[0], "cpuMillis": defaults[1]},
        "containerMax": {"memoryBytes": most[0], "cpuMillis": most[1]},
    }


def resource(required, cap, verdict, defaulted=(), over=(), used=0):
    """A resource of a fit; `used` by the profile's instances (none by default)."""
    available = None if cap is None else cap - used
    headroom = None if required is None or cap is None else available - required
    return {
        "required": required,
        "cap": cap,
        "headroom": headroom,
        "verdict": verdict,
        "used": used,
        "available": available,
        "defaulted": list(defaulted),
        "overMax": list(over),
    }


def test_each_resource_gets_its_own_verdict():
    result = fit(need(512, 500, 2, 0, ["web: cpu"]), limits(memory=512, cpu=1000, containers=1))
    assert result == {
        "fits": False,
        "more": 0,
        "resources": {
            "memory": resource(512, 512, "fits"),
            "cpu": resource(500, 1000, "unbounded"),
            "containers": resource(2, 1, "exceeds"),
            "storage": resource(0, None, "uncapped"),
        },
        "cost": None,  # no prices
    }
    assert fit(need(1, 1, 1, 1), limits(memory=1, storage=1))["fits"] is True


def test_no_requirements_is_unknown():
    result = fit(None, limits(memory=1))
    assert result["fits"] is None
    assert {r["verdict"] for r in result["resources"].values()} == {"unknown"}
    assert result["resources"]["memory"] == resource(None, 1, "unknown")


def test_the_fit_endpoint(api):
    blueprint = create(api, "blueprints", blueprintType="compose", yml=WEB).json
    assert blueprint["requirements"] == need(512 * Mi, 1000, 2)
    roomy = create(api, "profiles", memoryCap="1Gi", cpuCap="1", containerCap=2).json
    tight = create(api, "profiles", memoryCap="256Mi").json
    r = api.get(f"/blueprints/{blueprint['id']}/fit?profile={roomy['id']}", user="alice")
    assert r.status == 200 and r.json["fits"] is True
    assert r.json["resources"]["memory"] == resource(512 * Mi, 1024 * Mi, "fits")
    r = api.get(f"/blueprints/{blueprint['id']}/fit?profile={tight['id']}", user="alice")
    assert r.json["fits"] is False and r.json["resources"]["memory"]["verdict"] == "exceeds"
    assert r.json["resources"]["cpu"]["verdict"] == "uncapped"


def test_fit_needs_both_readable(api):
    public = create(api, "blueprints", entitlementType="PUBLIC", blueprintType="compose", yml=WEB).json
    alices = create(api, "profiles").json
    bobs = create(api, "profiles", user="bob").json
    assert api.get(f"/blueprints/{public['id']}/fit?profile={bobs['id']}", user="bob").status == 200
    for path, user in [
        (f"/blueprints/{public['id']}/fit?profile={alices['id']}", "bob"),
        (f"/blueprints/{'0' * 24}/fit?profile={bobs['id']}", "bob"),
        (f"/blueprints/{public['id']}/fit?profile=nope", "bob"),
    ]:
        assert_problem(api.get(path, user=user), 404)
    assert "profile" in assert_problem(api.get(f"/blueprints/{public['id']}/fit", user="bob"), 422)["errors"]


def test_without_a_profile_the_callers_default(api):
    blueprint = create(api, "blueprints", entitlementType="PUBLIC", blueprintType="compose", yml=WEB).json
    path = f"/blueprints/{blueprint['id']}/fit"
    create(api, "profiles", name="roomy", memoryCap="1Gi", user="bob")
    create(api, "profiles", name="tight", memoryCap="256Mi", defaultProfile=True, user="bob")
    create(api, "profiles", name="admin's", memoryCap="1Gi", defaultProfile=True, user="admin")
    r = api.get(path, user="bob")
    assert r.status == 200 and r.json["fits"] is False and r.json["resources"]["memory"]["cap"] == 256 * Mi
    assert api.get(path, user="admin").json["fits"] is True  # an admin's own default, not bob's
    problem = assert_problem(api.get(path, user="carol"), 422)  # carol has none
    assert problem["errors"] == {"profile": ["You have no default profile: name one."]}


def test_the_list_filters(api):
    web = create(api, "blueprints", name="web", blueprintType="compose", yml=WEB).json
    loose = create(api, "blueprints", name="loose", blueprintType="compose", yml=LOOSE).json
    other = create(api, "blueprints", name="other", blueprintType="helm", yml="a: 1").json
    assert other["requirements"] is None
    roomy = create(api, "profiles", name="roomy", memoryCap="1Gi", cpuCap="1").json
    uncapped_cpu = create(api, "profiles", name="memory only", memoryCap="1Gi").json
    tight = create(api, "profiles", name="tight", memoryCap="100Mi").json

    def names(path):
        r = api.get(path, user="alice")
        assert r.status == 200, r.json
        return sorted(item["name"] for item in r.json["items"])

    assert names(f"/blueprints?fitsProfile={roomy['id']}") == ["web"]  # loose declares no cpu
    assert names(f"/blueprints?fitsProfile={uncapped_cpu['id']}") == ["loose", "web"]
    assert names(f"/blueprints?fitsProfile={tight['id']}") == ["loose"]
    assert names(f"/profiles?fits={web['id']}") == ["memory only", "roomy"]
    assert names(f"/profiles?fits={loose['id']}") == ["memory only", "tight"]
    assert names(f"/profiles?fits={other['id']}") == []  # unknown is not a fit
    assert_problem(api.get(f"/blueprints?fitsProfile={roomy['id']}", user="bob"), 404)  # not bob's profile


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
def test_fit_filters_name_resources_the_caller_may_read(api, collection):
    parameter = "fits" if collection == "profiles" else "fitsProfile"
    assert_problem(api.get(f"/{collection}?{parameter}={'0' * 24}", user="alice"), 404)


# A profile's container defaults and maximum (docs/api.md, "Profiles as quotas")

MIXED = """services:
  web: {image: nginx, deploy: {replicas: 3}}
  db: {image: postgres, mem_limit: 1g, cpus: 2}
  cache: {image: redis, mem_reservation: 512m}
"""


def measured(text, kind="compose"):
    return definitions.requirements(kind, text)


def test_containers_that_declare_nothing_count_the_profiles_default():
    result = fit(measured(MIXED), limits(memory=4 * Gi, cpu=4000, defaults=(256 * Mi, 250)))
    memory, cpu = result["resources"]["memory"], result["resources"]["cpu"]
    # web: 3 x 256Mi; cache reserves 512m, so its limit can be no lower; db declares 1g
    assert memory == resource(3 * 256 * Mi + Gi + 512 * Mi, 4 * Gi, "fits", defaulted=["cache", "web"])
    assert cpu == resource(3 * 250 + 2000 + 250, 4000, "fits", defaulted=["cache", "web"])
    assert result["fits"] is True


def test_without_a_default_for_a_resource_it_stays_unbounded():
    result = fit(measured(MIXED), limits(memory=4 * Gi, cpu=4000, defaults=(256 * Mi, None)))
    assert result["resources"]["memory"]["verdict"] == "fits"
    assert result["resources"]["cpu"] == resource(2000, 4000, "unbounded")
    assert result["fits"] is False


def test_a_container_over_the_maximum_exceeds_whatever_the_totals():
    result = fit(measured(MIXED), limits(defaults=(256 * Mi, 250), most=(768 * Mi, 2000)))
    assert result["resources"]["memory"] == resource(
        3 * 256 * Mi + Gi + 512 * Mi, None, "exceeds", defaulted=["cache", "web"], over=["db: 1Gi > 768Mi"]
    )
    assert result["resources"]["cpu"]["verdict"] == "uncapped"  # db's 2 CPUs is the maximum itself
    assert result["fits"] is False
    defaulted_over = fit(measured(MIXED), limits(defaults=(None, 250), most=(None, 200)))["resources"]["cpu"]
    assert defaulted_over["overMax"] == ["cache: 250m > 200m", "db: 2 > 200m", "web: 250m > 200m"]


def test_kubernetes_containers_take_defaults_where_they_declare_neither_limit_nor_request():
    text = """apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      initContainers: [{name: setup, image: busybox}]
      containers:
      - {name: api, image: example/api, resources: {requests: {memory: 100Mi}}}
      - {name: sidecar, image: example/proxy}
"""
    result = fit(measured(text, "k8s"), limits(memory=Gi, cpu=1000, defaults=(64 * Mi, 100)))
    assert result["resources"]["memory"] == resource(
        2 * 100 * Mi + 2 * 64 * Mi, Gi, "fits", defaulted=["Deployment/api/sidecar"]
    )
    both = ["Deployment/api/api", "Deployment/api/sidecar"]
    assert result["resources"]["cpu"] == resource(4 * 100, 1000, "fits", defaulted=both)


def test_an_amount_waiting_for_a_variable_is_unknown_before_defaults():
    text = "services:\n  web: {image: x, mem_limit: '${MEM}'}\n  db: {image: y}\n"
    result = fit(measured(text), limits(memory=Gi, cpu=1000, containers=1, defaults=(256 * Mi, 250)))
    assert result["resources"]["memory"] == resource(None, Gi, "unknown")
    assert result["resources"]["cpu"]["defaulted"] == ["db", "web"]
    assert result["fits"] is False  # containers exceed: known whatever MEM is
    assert fit(measured(text), limits(memory=Gi, defaults=(256 * Mi, 250)))["fits"] is None
    replicas = "services:\n  web: {image: x, mem_limit: 1g, cpus: 1, scale: '${N}'}\n"
    unknown = fit(measured(replicas), limits(memory=Gi))["resources"]
    assert {name: r["verdict"] for name, r in unknown.items()} == dict.fromkeys(unknown, "unknown")


def test_the_list_filters_apply_defaults_and_maximum(api):
    create(api, "blueprints", name="web", blueprintType="compose", yml=WEB)
    create(api, "blueprints", name="loose", blueprintType="compose", yml=LOOSE)  # 64m, no cpu
    defaults = create(
        api, "profiles", name="defaults", memoryCap="1Gi", cpuCap="1", containerDefaults={"cpu": "100m"}
    ).json
    small = create(api, "profiles", name="small containers", containerMax={"memory": "128Mi"}).json

    def names(profile):
        found = api.get(f"/blueprints?fitsProfile={profile['id']}", user="alice").json["items"]
        return sorted(item["name"] for item in found)

    assert names(defaults) == ["loose", "web"]  # loose takes 100m of cpu
    assert names(small) == ["loose"]  # web's containers have 256m each
    loose = api.get("/blueprints?name=loose", user="alice").json["items"][0]
    assert sorted(p["name"] for p in api.get(f"/profiles?fits={loose['id']}", user="alice").json["items"]) == [
        "defaults",
        "small containers",
    ]


def test_a_profiles_defaults_and_maximum_are_checked_and_normalized(api):
    r = create(api, "profiles", containerDefaults={"memory": "256Mi", "cpu": 0.25}, containerMax={"memory": "1g"})
    assert r.status == 201, r.json
    assert r.json["containerDefaults"] == {"memory": "256Mi", "cpu": "0.25"}
    assert r.json["limits"]["containerDefaults"] == {"memoryBytes": 256 * Mi, "cpuMillis": 250}
    assert r.json["limits"]["containerMax"] == {"memoryBytes": 1000**3, "cpuMillis": None}
    over = api.patch(f"/profiles/{r.json['id']}", json={"containerMax": {"memory": "100Mi"}}, user="alice")
    assert assert_problem(over, 422)["errors"] == {"containerDefaults.memory": ["Must not be more than containerMax."]}
    for bad in ({"memory": "lots"}, {"disk": "1Gi"}, ["256Mi"], {"cpu": -1}, {"memory": {"a": 1}}):
        problem = assert_problem(api.post("/profiles", json={"containerDefaults": bad}, user="alice"), 422)
        assert any(key.startswith("containerDefaults") for key in problem["errors"]), problem

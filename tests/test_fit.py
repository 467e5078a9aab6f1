"""Whether a blueprint fits a profile: the fit endpoint, its verdicts, its access rules, and the
two list filters (`GET /profiles?fits=` and `GET /blueprints?fitsProfile=`)."""

import pytest

from app.definitions.fit import fit
from support.http import assert_problem, create
from support.requirements import need

Mi = 1024**2
WEB = "services:\n  web:\n    image: nginx\n    deploy:\n      replicas: 2\n      resources:\n        limits: {memory: 256m, cpus: '0.5'}\n"  # noqa: E501
LOOSE = "services:\n  web:\n    image: nginx\n    mem_limit: 64m\n"  # no cpu declared


def limits(memory=None, cpu=None, containers=None, storage=None):
    return {"memoryBytes": memory, "cpuMillis": cpu, "containers": containers, "storageBytes": storage}


def test_each_verdict():
    result = fit(need(512, 500, 2, 0, ["web: cpu"]), limits(memory=512, cpu=1000, containers=1))
    assert result == {"fits": False, "resources": {
        "memory": {"required": 512, "cap": 512, "headroom": 0, "verdict": "fits"},
        "cpu": {"required": 500, "cap": 1000, "headroom": 500, "verdict": "unbounded"},
        "containers": {"required": 2, "cap": 1, "headroom": -1, "verdict": "exceeds"},
        "storage": {"required": 0, "cap": None, "headroom": None, "verdict": "uncapped"},
    }}  # fmt: skip
    assert fit(need(1, 1, 1, 1), limits(memory=1, storage=1))["fits"] is True


def test_no_requirements_is_unknown():
    result = fit(None, limits(memory=1))
    assert result["fits"] is None
    assert {r["verdict"] for r in result["resources"].values()} == {"unknown"}
    assert result["resources"]["memory"] == {"required": None, "cap": 1, "headroom": None, "verdict": "unknown"}


def test_the_fit_endpoint(api):
    blueprint = create(api, "blueprints", blueprintType="compose", yml=WEB).json
    assert blueprint["requirements"] == need(512 * Mi, 1000, 2)
    roomy = create(api, "profiles", memoryCap="1Gi", cpuCap="1", containerCap=2).json
    tight = create(api, "profiles", memoryCap="256Mi").json
    r = api.get(f"/blueprints/{blueprint['id']}/fit?profile={roomy['id']}", user="alice")
    assert r.status == 200 and r.json["fits"] is True
    assert r.json["resources"]["memory"] == {"required": 512 * Mi, "cap": 1024 * Mi, "headroom": 512 * Mi,
                                             "verdict": "fits"}  # fmt: skip
    r = api.get(f"/blueprints/{blueprint['id']}/fit?profile={tight['id']}", user="alice")
    assert r.json["fits"] is False and r.json["resources"]["memory"]["verdict"] == "exceeds"
    assert r.json["resources"]["cpu"]["verdict"] == "uncapped"


def test_fit_needs_both_readable(api):
    public = create(api, "blueprints", entitlementType="PUBLIC", blueprintType="compose", yml=WEB).json
    alices = create(api, "profiles").json
    bobs = create(api, "profiles", user="bob").json
    assert api.get(f"/blueprints/{public['id']}/fit?profile={bobs['id']}", user="bob").status == 200
    for path, user in [(f"/blueprints/{public['id']}/fit?profile={alices['id']}", "bob"),
                       (f"/blueprints/{'0' * 24}/fit?profile={bobs['id']}", "bob"),
                       (f"/blueprints/{public['id']}/fit?profile=nope", "bob")]:  # fmt: skip
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
